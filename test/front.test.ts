/**
 * The front entry (src/front.ts) as a real process against a private redis-server that the test kills and restarts,
 * with MySQL unreachable for the front: it starts and listens whatever is down, says what is missing, serves
 * callbacks and log accepts from Redis without MySQL, survives binds in flight while Redis dies, and logs a Redis
 * outage as one line per client and change, without stack traces.
 */
import t from 'tap'
import { waitReady } from '../src/redis/connection.js'
import { prepareRedisCopies } from '../src/runtime/storage.js'
import { entry, privateRedis, startPart, type Part } from './helpers/parts.js'
import { freePort } from './helpers/scratch.js'
import { eventually, getText, postJson, startStack } from './helpers/stack.js'

// Slow on a busy machine (processes that load the TypeScript sources, or many runs): more than tap's 120 s per file.
t.setTimeout(300_000)

const CHAT_USER = '500000000000000001'

/** The bootstrap key (API_KEY) needs no Redis copy, which each empty Redis restart below loses. */
const BOOTSTRAP_KEY = 'front-test-bootstrap-key-0123456789abcdef'

/** Redis kills while binds are in flight. */
const OUTAGES = 8

t.test('front with Redis and MySQL down', async (t) => {
  const redis = await privateRedis(t)
  const stack = await startStack(t, { env: { REDIS_URL: redis.url }, front: false, consumers: [] })
  const { code } = await stack.codes.issue(CHAT_USER)
  await stack.codes.bind(code.code, { platformUserId: '156', platformUsername: 'Builderman' }, { source: 'test' })
  const auth = `Bearer ${stack.apiKey}`
  await redis.kill()

  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const front: Part = startPart(t, entry('src/front.ts'), {
    // Nothing listens on port 1: MySQL is down for the front for the whole file.
    DATABASE_URL: 'mysql://root@127.0.0.1:1/unreachable',
    REDIS_URL: redis.url,
    REDIS_PREFIX: stack.config.redisPrefix,
    HOST: '127.0.0.1',
    PORT: String(port),
    METRICS_PORT: '0',
    FRONT_WORKERS: '1',
    RATE_LIMITS: 'off',
    BIND_TIMEOUT_MS: '1000',
    LOG_LEVEL: 'info',
    API_KEY: BOOTSTRAP_KEY,
  })

  t.test('started while Redis is down, it listens: /healthz 200, /readyz 503 naming both, the API 503 with Retry-After', async (t) => {
    await front.waitFor((e) => e.msg === 'front listening', 150_000, 'the front to listen')
    t.equal((await getText(`${origin}/healthz`)).status, 200)
    const ready = await getText(`${origin}/readyz`)
    t.equal(ready.status, 503)
    t.same(JSON.parse(ready.text), { status: 'not_ready', redis: 'down', mysql: 'down' })
    const callbacks = await getText(`${origin}/api/v1/callbacks/${code.code}`)
    t.equal(callbacks.status, 503)
    t.equal(callbacks.headers.get('retry-after'), '5')
    t.equal(callbacks.text, 'temporarily unavailable; retry shortly\n')
    const log = await postJson(`${origin}/api/v1/log/server`, { event_type: 'boot', description: 'up' }, auth)
    t.equal(log.status, 503)
    t.equal(log.headers.get('retry-after'), '5')
    t.same(log.body, { detail: { status: 'error', code: 'service_unavailable', message: 'temporarily unavailable; retry shortly' } })
    const bind = await postJson(`${origin}/api/v1/bind`, { code: code.code, platform_username: 'Builderman' }, auth)
    t.equal(bind.status, 503)
    t.equal(bind.body.detail.code, 'service_unavailable')
  })

  t.test('once Redis is back (MySQL still down) it is "degraded" but ready, and serves callbacks, rpc and log accepts', async (t) => {
    await redis.start()
    // Redis restarted empty: a worker would rebuild the copies from MySQL; the test's own clients do it here.
    await waitReady(stack.redis)
    await prepareRedisCopies(stack.ctx, stack.db, stack.redis)
    const ready = await eventually(async () => {
      const r = await getText(`${origin}/readyz`)
      return r.status === 200 ? r : undefined
    }, 20_000, '/readyz 200')
    t.same(JSON.parse(ready.text), { status: 'degraded', redis: 'ok', mysql: 'down' })
    const callbacks = await getText(`${origin}/api/v1/callbacks/${code.code}`)
    t.equal(callbacks.status, 200)
    t.match(callbacks.text, `{${code.code};\nBuilderman;`)
    t.equal((await getText(`${origin}/api/v1/rpc/${code.code}`)).status, 200)
    const log = await postJson(`${origin}/api/v1/log/server`, { event_type: 'boot', description: 'up' }, auth)
    t.equal(log.status, 200)
    t.same(log.body, { status: 'logged', category: 'server' })
  })

  t.test('binds in flight while Redis is killed and restarted again and again: no front worker dies', async (t) => {
    const workerPid = (await front.waitFor((e) => e.process === 'front-worker' && e.msg === 'Redis is unreachable; listening anyway (API routes answer 503 until it is back)', 1000, 'worker pid')).pid
    const statuses = new Map<number, number>()
    let firing = true
    // No bind consumer runs: every accepted bind waits for its result (BIND_TIMEOUT_MS) while Redis goes away.
    const binders = Array.from({ length: 48 }, async () => {
      while (firing) {
        const res = await postJson(`${origin}/api/v1/bind`, { code: code.code, platform_username: 'Builderman' }, `Bearer ${BOOTSTRAP_KEY}`).catch(() => ({ status: 0 }))
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
      }
    })
    // Eight short outages under load: on the old code a worker died in most runs (BullMQ's waitUntilFinished).
    for (let i = 0; i < OUTAGES; i++) {
      await new Promise((r) => setTimeout(r, 700))
      await redis.kill()
      await new Promise((r) => setTimeout(r, 700))
      await redis.start()
    }
    await new Promise((r) => setTimeout(r, 1500))
    firing = false
    await Promise.all(binders)
    t.notOk(statuses.has(0), `no connection was reset (statuses: ${JSON.stringify([...statuses])})`)
    t.ok([...statuses.keys()].every((s) => s === 503), 'every bind answered 503 (Redis down, or no worker to finish it)')
    t.same(front.entries().filter((e) => e.msg === 'front worker died; restarting'), [], 'no front worker died')
    t.same(front.entries().filter((e) => e.msg === 'unhandled rejection'), [], 'no unhandled rejection')
    t.ok(front.entries().some((e) => e.pid === workerPid && e.msg === 'redis reachable again'), 'the same worker saw Redis come back')
  })

  t.test('the outages were logged as one line per client and change, with no stack trace', async (t) => {
    const lines = front.lines()
    t.same(lines.filter((l) => l.includes('    at ')), [], 'no stack trace lines')
    const down = front.entries().filter((e) => e.msg === 'redis unreachable')
    const clients = new Set(down.map((e) => e.client))
    t.same([...clients].sort(), ['feed', 'front', 'front-events', 'front-queue'], 'the reads, the queue, the bind events and the change feed')
    // The outage at start and the kills: one line each, a BullMQ blocking connection may add one; a client whose
    // reconnect happened to fall after the restart saw no outage at all.
    const outages = OUTAGES + 1
    for (const client of clients) {
      const n = down.filter((e) => e.client === client).length
      const back = front.entries().filter((e) => e.msg === 'redis reachable again' && e.client === client).length
      t.ok(n >= outages / 2 && n <= 2 * outages, `${String(client)}: ${n} "redis unreachable" lines for ${outages} outages`)
      t.ok(back >= n - 1 && back <= n, `${String(client)}: ${back} "redis reachable again" lines`)
    }
    t.ok(down.every((e) => typeof e.code === 'string' && e.code !== ''), 'each names the error code')
  })
})
