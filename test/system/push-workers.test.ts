/**
 * Two worker processes running the push publisher against the real Redis, MariaDB and the sandbox's fake Open Cloud:
 * each change is published once, and when the leading worker is SIGKILLed (its lease is not given up) the other takes
 * the universe over once the lease lapses and publishes a change made meanwhile, once.
 */
import t from 'tap'
import { entry, startPart, type Part } from '../helpers/parts.js'
import { PUSH_TEST_SECRET, startPushWorld } from '../helpers/push-world.js'
import { eventually } from '../helpers/stack.js'

// Slow on a busy machine (processes that load the TypeScript sources, or many runs): more than tap's 120 s per file.
t.setTimeout(300_000)

const UNIVERSE = 3001

t.test('two push workers', async (t) => {
  const world = await startPushWorld(t)
  await world.addUniverse(UNIVERSE)
  const codes = await world.linkedCodes(2)
  await world.subscribe(UNIVERSE, 'job-1', codes)
  const env = {
    DATABASE_URL: world.stack.config.databaseUrl,
    REDIS_URL: world.stack.config.redisUrl,
    REDIS_PREFIX: world.stack.config.redisPrefix,
    HOST: '127.0.0.1',
    WORKER_METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    PUSH_SECRET: PUSH_TEST_SECRET,
    OPEN_CLOUD_API: `${world.sandbox.url}/open-cloud`,
  }
  const workers: Part[] = [startPart(t, entry('workers/worker.ts'), env, ['push']), startPart(t, entry('workers/worker.ts'), env, ['push'])]
  for (const w of workers) await w.waitFor((e) => e.msg === 'worker ready', 120_000, 'worker ready')
  await world.waitRecorded(UNIVERSE, codes)
  const count = async (game: string) => (await world.messages(UNIVERSE)).filter((m) => m.message.includes(`${game};`)).length

  t.test('each change is published once', async (t) => {
    for (const game of ['Chess', 'Go', 'Shogi']) {
      await world.play(codes[0]!, game)
      await eventually(async () => ((await count(game)) > 0 ? true : undefined), 20_000, `${game} published`)
    }
    await new Promise((r) => setTimeout(r, 2500))
    for (const game of ['Chess', 'Go', 'Shogi']) t.equal(await count(game), 1, game)
  })

  t.test('the leader is killed; the other publishes what changed meanwhile, once', async (t) => {
    const token = await world.stack.redis.get(world.stack.ctx.keys.pushLease(UNIVERSE))
    const pid = Number(token?.split(':')[1])
    const leader = workers.find((w) => w.child.pid === pid)
    if (leader === undefined) throw new Error(`no worker holds the lease (${token})`)
    await leader.stop('SIGKILL')
    await world.play(codes[1]!, 'Xiangqi')
    await eventually(async () => ((await count('Xiangqi')) > 0 ? true : undefined), 40_000, 'the change published by the other worker')
    await new Promise((r) => setTimeout(r, 2500))
    t.equal(await count('Xiangqi'), 1)
    const newToken = await world.stack.redis.get(world.stack.ctx.keys.pushLease(UNIVERSE))
    t.not(Number(newToken?.split(':')[1]), pid, 'the lease moved')
  })
})
