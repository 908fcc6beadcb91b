/**
 * Ctrl-C with Redis down, part by part (the worker and the gateway as real processes; the front in
 * test/http/routes/health.redis-down.test.ts): each started against a private Redis, which is then killed; SIGINT
 * must end each within the shutdown deadline with status 0, without `shutdown deadline passed` or `close failed`.
 */
import t from 'tap'
import { createSandbox } from '../../src/sandbox/create-sandbox.js'
import { entry, privateRedis, startGatewayPart, startPart, type Part } from '../helpers/parts.js'
import { startStack, type Stack } from '../helpers/stack.js'

type Assert = Pick<typeof t, 'equal' | 'same' | 'ok'>

t.setTimeout(300_000)

let stack: Stack

t.before(async () => {
  stack = await startStack(t, { front: false, consumers: [] })
})

const errors = (part: Part) => part.entries().filter((e) => e.msg === 'shutdown deadline passed' || e.msg === 'close failed')

async function stopWithRedisDown(t: Assert, part: Part, kill: () => Promise<void>): Promise<void> {
  await kill()
  await part.waitFor((e) => e.msg === 'redis unreachable', 30_000, 'the outage to be seen')
  t.equal(await part.stop('SIGINT'), 0, 'exit status 0')
  t.same(errors(part), [], 'no deadline or close errors')
  t.ok(part.entries().some((e) => e.msg === 'shutting down'), 'it shut down')
}

t.test('the worker', async (t) => {
  const redis = await privateRedis(t)
  const worker = startPart(t, entry('workers/worker.ts'), {
    DATABASE_URL: stack.config.databaseUrl,
    REDIS_URL: redis.url,
    REDIS_PREFIX: stack.config.redisPrefix,
    HOST: '127.0.0.1',
    WORKER_METRICS_PORT: '0',
    LOG_LEVEL: 'info',
  })
  await worker.waitFor((e) => e.msg === 'worker ready', 150_000, 'worker ready')
  await stopWithRedisDown(t, worker, () => redis.kill())
})

t.test('the gateway', async (t) => {
  const redis = await privateRedis(t)
  const sandbox = await createSandbox({ port: 0, log: () => undefined })
  t.teardown(() => sandbox.close())
  const gateway = startGatewayPart(t, { ...stack.config, redisUrl: redis.url }, sandbox.apiBase)
  await gateway.waitFor((e) => e.msg === 'gateway ready', 150_000, 'gateway ready')
  await stopWithRedisDown(t, gateway, () => redis.kill())
})
