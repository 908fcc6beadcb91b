/**
 * The worker entry (workers/worker.ts) as a real process against a private redis-server: its metrics port answers
 * /healthz and /readyz from the start, even while Redis is down; the consumers start once Redis is there;
 * `presence_link_dependency_up` follows; a Redis outage is one line per client and change, with no stack trace.
 */
import t from 'tap'
import { entry, privateRedis, startPart } from '../helpers/parts.js'
import { freePort } from '../helpers/scratch.js'
import { eventually, getText, startStack } from '../helpers/stack.js'

function gauge(metrics: string, dependency: string): number | undefined {
  const m = new RegExp(`^presence_link_dependency_up\\{dependency="${dependency}"\\} (\\S+)$`, 'm').exec(metrics)
  return m === null ? undefined : Number(m[1])
}

t.test('worker with Redis down at start, then killed for a few seconds', async (t) => {
  const redis = await privateRedis(t)
  const stack = await startStack(t, { env: { REDIS_URL: redis.url }, front: false, consumers: [] })
  await redis.kill()
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const worker = startPart(t, entry('workers/worker.ts'), {
    DATABASE_URL: stack.config.databaseUrl,
    REDIS_URL: redis.url,
    REDIS_PREFIX: stack.config.redisPrefix,
    HOST: '127.0.0.1',
    WORKER_METRICS_PORT: String(port),
    LOG_LEVEL: 'info',
  })

  t.test('it answers /healthz 200 and /readyz 503 naming Redis, and exports the gauge, while Redis is down', async (t) => {
    await worker.waitFor((e) => e.msg === 'metrics listening', 60_000, 'the metrics port')
    t.equal((await getText(`${base}/healthz`)).status, 200)
    const ready = await getText(`${base}/readyz`)
    t.equal(ready.status, 503)
    t.same(JSON.parse(ready.text), { status: 'not_ready', redis: 'down', mysql: 'ok' })
    const metrics = (await getText(`${base}/metrics`)).text
    t.equal(gauge(metrics, 'redis'), 0)
    t.equal(gauge(metrics, 'mysql'), 1)
    await worker.waitFor((e) => e.msg === 'waiting for dependencies before starting', 10_000, 'the waiting line')
  })

  t.test('once Redis is there the consumers start and /readyz is 200', async (t) => {
    await redis.start()
    await worker.waitFor((e) => e.msg === 'worker ready', 60_000, 'worker ready')
    const ready = await getText(`${base}/readyz`)
    t.equal(ready.status, 200)
    t.same(JSON.parse(ready.text), { status: 'ready', redis: 'ok', mysql: 'ok' })
    t.equal(gauge((await getText(`${base}/metrics`)).text, 'redis'), 1)
  })

  t.test('Redis killed for 5 s: /readyz 503 meanwhile, one line per client each way, no stack trace', async (t) => {
    const before = worker.entries().length
    await redis.kill()
    await eventually(async () => ((await getText(`${base}/readyz`)).status === 503 ? true : undefined), 10_000, '/readyz 503')
    await new Promise((r) => setTimeout(r, 5000))
    await redis.start()
    await eventually(async () => ((await getText(`${base}/readyz`)).status === 200 ? true : undefined), 20_000, '/readyz 200 again')
    await new Promise((r) => setTimeout(r, 2000))
    const entries = worker.entries().slice(before)
    const down = entries.filter((e) => e.msg === 'redis unreachable')
    const up = entries.filter((e) => e.msg === 'redis reachable again')
    const clients = [...new Set(down.map((e) => String(e.client)))].sort()
    // `feed`: the push publisher's change feed subscriber.
    t.same(clients, ['consumer-audit', 'consumer-bind', 'consumer-log', 'data', 'feed', 'health'])
    for (const client of clients) {
      const n = down.filter((e) => e.client === client).length
      t.ok(n >= 1 && n <= 2, `${client}: ${n} "redis unreachable" lines`)
      t.equal(up.filter((e) => e.client === client).length, n, `${client}: as many "redis reachable again" lines`)
    }
    t.same(worker.lines().filter((l) => l.includes('    at ')), [], 'no stack trace lines')
    t.ok(worker.lines().length - before < 60, `${worker.lines().length - before} lines for the outage`)
  })
})
