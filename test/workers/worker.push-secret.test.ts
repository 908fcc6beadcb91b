/**
 * The worker entry as a real process with push targets stored: without PUSH_SECRET, or with a secret that opens none
 * of their keys, it exits 78 after one line saying so; with the right one the publisher starts.
 */
import t from 'tap'
import { buildPushTargets } from '../../src/runtime/services.js'
import { entry, startPart } from '../helpers/parts.js'
import { startStack } from '../helpers/stack.js'

const SECRET = 'the-secret-the-keys-were-added-with-0123'

t.test('a worker with push targets and no usable PUSH_SECRET', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const added = await buildPushTargets(stack.db, SECRET, 'http://127.0.0.1:9').add('test-server', 4567, 'open-cloud-key-0123456789', 'test')
  t.ok(added.ok)
  const env = (secret: string) => ({
    DATABASE_URL: stack.config.databaseUrl,
    REDIS_URL: stack.config.redisUrl,
    REDIS_PREFIX: stack.config.redisPrefix,
    HOST: '127.0.0.1',
    WORKER_METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    PUSH_SECRET: secret,
  })

  t.test('without PUSH_SECRET: exit 78, one line naming the variable and the stored targets', async (t) => {
    const worker = startPart(t, entry('workers/worker.ts'), env(''), ['push'])
    const line = await worker.waitFor((e) => typeof e.msg === 'string' && e.msg.startsWith('worker cannot start'), 120_000, 'the refusal')
    t.match(line.msg, /^worker cannot start: PUSH_SECRET: required once any push target exists \(1 stored; `presence-link push list`\)/)
    t.match(line.msg, /or stop pushing to them: `presence-link push remove --key NAME --universe ID`/, 'names push remove as the other way out')
    t.equal(await worker.stop(), 78)
  })

  t.test('with a wrong secret: exit 78, saying it opens none of the stored keys', async (t) => {
    const worker = startPart(t, entry('workers/worker.ts'), env('a-wrong-secret-of-more-than-32-chars-xx'), ['push'])
    const line = await worker.waitFor((e) => typeof e.msg === 'string' && e.msg.startsWith('worker cannot start'), 120_000, 'the refusal')
    t.match(line.msg, /PUSH_SECRET: it opens none of the 1 stored Open Cloud keys: it is not the secret they were added with/)
    t.match(line.msg, /`presence-link push remove --key NAME --universe ID`/, 'names push remove as the other way out')
    t.notMatch(worker.lines().join('\n'), /open-cloud-key-0123456789/, 'the key is never printed')
    t.equal(await worker.stop(), 78)
  })

  t.test('with the right secret the publisher starts', async (t) => {
    const worker = startPart(t, entry('workers/worker.ts'), env(SECRET), ['push'])
    const started = await worker.waitFor((e) => e.msg === 'push publisher started', 120_000, 'the publisher')
    t.equal(started.targets, 1)
    await worker.waitFor((e) => e.msg === 'worker ready', 30_000, 'worker ready')
    t.notMatch(worker.lines().join('\n'), /open-cloud-key-0123456789/)
  })
})
