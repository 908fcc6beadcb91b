/**
 * A front whose path to Redis goes silent (a partition: nothing closed, nothing delivered) must not go on serving
 * what its near cache holds while the changes published meanwhile sit in a dead socket: within a few seconds it
 * answers 503 ("temporarily unavailable; retry shortly") instead, and once the path heals it serves the current
 * state again, never "No activity" from shard marks read before the stall.
 */
import t from 'tap'
import { createRedis } from '../../../src/redis/connection.js'
import { createPresenceStore } from '../../../src/redis/presence-store.js'
import { eventually, getText, startStack } from '../../helpers/stack.js'
import { startTcpProxy } from '../../helpers/tcp-proxy.js'

const block = (code: string, game: string) => `{${code};\nSilent_One;\nPlaying,\n${game};\n}\n`

t.test('a silent Redis path: no stale answers from the near cache, 503 meanwhile, current answers after', async (t) => {
  const proxy = await startTcpProxy('127.0.0.1', 6379)
  t.teardown(() => proxy.close())
  const stack = await startStack(t, { env: { RATE_LIMITS: 'off', REDIS_URL: `redis://127.0.0.1:${proxy.port}` }, consumers: [] })
  // The test's writer reaches Redis directly, like a gateway on another host whose path is fine.
  const direct = createRedis('redis://127.0.0.1:6379', 'request', `silent-test-${process.pid}`)
  t.teardown(() => direct.disconnect())
  const gateway = createPresenceStore(direct, stack.ctx.keys)

  const { code } = await stack.codes.issue('310000000000000001')
  t.equal((await stack.codes.bind(code.code, { platformUserId: '3101', platformUsername: 'Silent_One' }, { source: 'test' })).status, 'bound')
  // The gateway renews a short mark all along, as a real one does (every 5 s for 15 s); the front's last-read copy
  // of it lapses during the stall, while Redis's never does.
  await gateway.markLive(0, 5000)
  const renewing = setInterval(() => void gateway.renewMark(0, 5000), 300)
  t.teardown(() => clearInterval(renewing))
  await gateway.set(code.code, { shard: 0, status: 'online', activity: 'Playing,\nBefore;\n' })
  const url = `${stack.api}/callbacks/${code.code}`
  await eventually(async () => ((await getText(url)).text === block(code.code, 'Before') ? true : undefined), 5000, 'the first view')
  t.equal((await getText(url)).text, block(code.code, 'Before'), 'served, and now cached')

  const stalledAt = Date.now()
  // A partition: nothing closed, nothing delivered, and new connections fail (their attempts time out).
  proxy.stall({ newConnections: 'fail' })
  await gateway.set(code.code, { shard: 0, status: 'online', activity: 'Playing,\nDuring;\n' })
  // The change's feed message is held in the stalled path: only noticing the silence stops the cached view.
  const during = await eventually(async () => {
    const res = await getText(url)
    return res.text === block(code.code, 'Before') ? undefined : res
  }, 15_000, 'the front to stop serving the view from before the stall')
  t.equal(during.status, 503)
  t.equal(during.text, 'temporarily unavailable; retry shortly\n')
  t.equal(during.headers.get('retry-after'), '5')
  for (let i = 0; i < 5; i++) t.not((await getText(url)).text, block(code.code, 'Before'), 'never the old view again while stalled')
  // Long enough for the front's copy of the mark to lapse.
  await new Promise((r) => setTimeout(r, stalledAt + 7000 - Date.now()))

  proxy.resume()
  // Every answer from the moment the front serves again shows the change: never "No activity" from marks read
  // before the stall (the shard stayed live all along).
  const answers: string[] = []
  const until = Date.now() + 8000
  while (Date.now() < until && answers.length < 20) {
    const res = await getText(url)
    if (res.status === 200) answers.push(res.text)
    else t.equal(res.status, 503, 'not served yet: 503')
    await new Promise((r) => setTimeout(r, 20))
  }
  t.ok(answers.length >= 20, `served again after the stall (${answers.length} answers)`)
  t.same([...new Set(answers)], [block(code.code, 'During')], 'every answer is the change made during the stall')
})
