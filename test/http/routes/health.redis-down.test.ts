/**
 * /readyz of a real front process (src/front.ts) while Redis is down, probed as a balancer or `serve` does (several
 * times a second): every probe gets its 503, and the log says what is missing once per change of reason, not once
 * per probe. Ctrl-C then stops it within the shutdown deadline without an error.
 */
import t from 'tap'
import { ensureDatabase } from '../../../src/mysql/connection.js'
import { entry, privateRedis, startPart } from '../../helpers/parts.js'
import { freePort } from '../../helpers/scratch.js'
import { dropEverything, eventually, getText, testConfig, uniqueName } from '../../helpers/stack.js'

t.setTimeout(240_000)

const name = uniqueName()
const config = testConfig(name)
t.teardown(() => dropEverything(config, name))
t.before(() => ensureDatabase(config.databaseUrl))

t.test('Redis down: 40 probes of /readyz, one "dependencies missing" line, no "request failed"; Ctrl-C exits cleanly', async (t) => {
  const redis = await privateRedis(t)
  const port = await freePort()
  const front = startPart(t, entry('src/front.ts'), {
    DATABASE_URL: config.databaseUrl,
    REDIS_URL: redis.url,
    REDIS_PREFIX: name,
    HOST: '127.0.0.1',
    PORT: String(port),
    METRICS_PORT: '0',
    FRONT_WORKERS: '1',
    LOG_LEVEL: 'info',
  })
  const origin = `http://127.0.0.1:${port}`
  await front.waitFor((e) => e.msg === 'front listening', 150_000, 'the front to listen')
  await eventually(async () => ((await getText(`${origin}/readyz`)).status === 200 ? true : undefined), 60_000, '/readyz 200 with Redis up')
  await redis.kill()
  const missing = (e: Record<string, unknown>) => e.msg === 'dependencies missing'
  await front.waitFor(missing, 30_000, 'the "dependencies missing" line')
  const statuses: number[] = []
  for (let i = 0; i < 40; i++) {
    statuses.push((await getText(`${origin}/readyz`)).status)
    await new Promise((r) => setTimeout(r, 25))
  }
  t.same(new Set(statuses), new Set([503]), 'every probe: 503')
  t.same(front.entries().filter((e) => typeof e.msg === 'string' && e.msg.startsWith('request failed')), [], 'no "request failed" per probe')
  const lines = front.entries().filter(missing)
  t.equal(lines.length, 1, 'one "dependencies missing" line for one reason')
  t.match(lines[0], { level: 50, missing: ['redis'], reason: /^redis: / })
  t.equal(front.entries().filter((e) => e.msg === 'request').length, 0, 'no per-probe request lines either')

  const code = await front.stop('SIGINT')
  t.equal(code, 0, 'Ctrl-C: exit status 0')
  t.same(front.entries().filter((e) => e.msg === 'shutdown deadline passed' || e.msg === 'close failed'), [], 'no deadline or close errors')
})
