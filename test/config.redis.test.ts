/**
 * Where Redis is (issue 22): REDIS_URL alone, or Sentinels (REDIS_SENTINELS, REDIS_SENTINEL_NAME, the optional
 * passwords); ambiguous combinations are refused with a message naming the variables; REDIS_WRITE_REPLICAS and
 * REDIS_WRITE_TIMEOUT_MS are validated like every number. Pure: parseConfig on plain objects.
 */
import t from 'tap'
import { describeRedisTarget, parseConfig, parseSentinelAddress } from '../src/config.js'

const problemsOf = (env: Record<string, string>): string[] => {
  const r = parseConfig(env)
  return r.ok ? [] : r.problems
}

t.test('the single URL is the default, and WAIT is off', async (t) => {
  const r = parseConfig({})
  if (!r.ok) throw new Error(r.problems.join('; '))
  t.same(r.config.redis, { kind: 'url', url: 'redis://127.0.0.1:6379' })
  t.equal(r.config.redisWriteReplicas, 0)
  t.equal(r.config.redisWriteTimeoutMs, 1000)
  t.equal(describeRedisTarget(r.config.redis), '127.0.0.1:6379')
})

t.test('REDIS_URL alone gives its address (an empty Sentinel variable counts as unset)', async (t) => {
  const r = parseConfig({ REDIS_URL: 'redis://:pw@cache.internal:6380', REDIS_SENTINELS: '', REDIS_PASSWORD: '' })
  if (!r.ok) throw new Error(r.problems.join('; '))
  t.same(r.config.redis, { kind: 'url', url: 'redis://:pw@cache.internal:6380' })
  t.equal(describeRedisTarget(r.config.redis), 'cache.internal:6380', 'no password in the description')
})

t.test('Sentinels: addresses, master name and both passwords', async (t) => {
  const r = parseConfig({
    REDIS_SENTINELS: ' s1.internal:26379, 10.0.0.2:26380 ,[fd00::3]:26381,s4.internal',
    REDIS_SENTINEL_NAME: 'presence',
    REDIS_SENTINEL_PASSWORD: 'sentinel secret',
    REDIS_PASSWORD: 'data secret',
    REDIS_WRITE_REPLICAS: '1',
    REDIS_WRITE_TIMEOUT_MS: '250',
  })
  if (!r.ok) throw new Error(r.problems.join('; '))
  t.same(r.config.redis, {
    kind: 'sentinel',
    sentinels: [
      { host: 's1.internal', port: 26379 },
      { host: '10.0.0.2', port: 26380 },
      { host: 'fd00::3', port: 26381 },
      { host: 's4.internal', port: 26379 },
    ],
    name: 'presence',
    password: 'data secret',
    sentinelPassword: 'sentinel secret',
  })
  t.equal(r.config.redisWriteReplicas, 1)
  t.equal(r.config.redisWriteTimeoutMs, 250)
  t.equal(describeRedisTarget(r.config.redis), 'sentinel presence at s1.internal:26379,10.0.0.2:26380,fd00::3:26381,s4.internal:26379')
})

t.test('ambiguous or incomplete combinations are refused, each with its reason', async (t) => {
  const cases: Array<[string, Record<string, string>, RegExp[]]> = [
    ['REDIS_URL and REDIS_SENTINELS both set', { REDIS_URL: 'redis://a:6379', REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_NAME: 'm' }, [/REDIS_URL and REDIS_SENTINELS are both set/]],
    ['Sentinels without a master name', { REDIS_SENTINELS: 's:26379' }, [/REDIS_SENTINEL_NAME is required with REDIS_SENTINELS/]],
    ['a master name without Sentinels', { REDIS_SENTINEL_NAME: 'm' }, [/REDIS_SENTINEL_NAME is set but REDIS_SENTINELS is not/]],
    ['a Sentinel password without Sentinels', { REDIS_SENTINEL_PASSWORD: 'x' }, [/REDIS_SENTINEL_PASSWORD is set but REDIS_SENTINELS is not/]],
    ['a data password without Sentinels', { REDIS_PASSWORD: 'x' }, [/without Sentinel, put the password in REDIS_URL/]],
    ['an address that is not host:port', { REDIS_SENTINELS: 's1:26379,http://s2:26379', REDIS_SENTINEL_NAME: 'm' }, [/REDIS_SENTINELS: "http:\/\/s2:26379" is not host:port/]],
    ['a port out of range', { REDIS_SENTINELS: 's1:70000', REDIS_SENTINEL_NAME: 'm' }, [/"s1:70000" is not host:port/]],
    ['only commas', { REDIS_SENTINELS: ' , ,', REDIS_SENTINEL_NAME: 'm' }, [/REDIS_SENTINELS must be a comma list of host:port/]],
    ['a master name with a newline', { REDIS_SENTINELS: 's1', REDIS_SENTINEL_NAME: 'm\nx' }, [/REDIS_SENTINEL_NAME must be 1-64 characters/]],
    ['a negative replica count', { REDIS_WRITE_REPLICAS: '-1' }, [/REDIS_WRITE_REPLICAS must be a whole number/]],
    ['too many replicas', { REDIS_WRITE_REPLICAS: '17' }, [/REDIS_WRITE_REPLICAS must be at most 16/]],
    ['a timeout below 10 ms', { REDIS_WRITE_TIMEOUT_MS: '5' }, [/REDIS_WRITE_TIMEOUT_MS must be at least 10/]],
    ['a timeout over a minute', { REDIS_WRITE_TIMEOUT_MS: '60001' }, [/REDIS_WRITE_TIMEOUT_MS must be at most 60000/]],
  ]
  for (const [what, env, expected] of cases) {
    const problems = problemsOf(env)
    t.equal(problems.length, expected.length, `${what}: ${problems.join('; ')}`)
    for (const re of expected) t.ok(problems.some((p) => re.test(p)), `${what}: ${re}`)
  }
})

t.test('every Redis problem is listed with the others at once', async (t) => {
  const problems = problemsOf({ REDIS_URL: 'redis://a', REDIS_SENTINELS: 'bad/addr', PORT: 'x' })
  t.ok(problems.some((p) => /PORT/.test(p)), 'PORT is reported')
  t.ok(problems.some((p) => /REDIS_URL and REDIS_SENTINELS/.test(p)))
  t.ok(problems.some((p) => /"bad\/addr" is not host:port/.test(p)))
  t.ok(problems.some((p) => /REDIS_SENTINEL_NAME is required/.test(p)))
})

t.test('sentinel addresses', async (t) => {
  t.same(parseSentinelAddress('h:1'), { host: 'h', port: 1 })
  t.same(parseSentinelAddress('[::1]'), { host: '::1', port: 26379 })
  for (const bad of ['', ':26379', 'h:0', 'h:x', 'h:26379:1', 'a b:1', 'h:123456', `${'x'.repeat(10)}\n:1`]) t.equal(parseSentinelAddress(bad), null, JSON.stringify(bad))
})
