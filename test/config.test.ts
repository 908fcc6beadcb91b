import t from 'tap'
import { DEFAULT_RATE_LIMITS, parseConfig } from '../src/config.js'

t.test('defaults work on this machine kind', async (t) => {
  const r = parseConfig({})
  t.ok(r.ok)
  if (!r.ok) return
  t.equal(r.config.port, 8080)
  t.equal(r.config.redisUrl, 'redis://127.0.0.1:6379')
  t.equal(r.config.databaseUrl, 'mysql://root@127.0.0.1:3306/presence_link')
  t.equal(r.config.gamePlatformName, 'Roblox')
  t.equal(r.config.maxCodesPerRequest, 200)
  t.equal(r.config.robloxUsersApi, 'https://users.roblox.com')
  t.same(r.config.rateLimits, DEFAULT_RATE_LIMITS)
  t.same(r.config.trustProxy, [])
  t.ok(Object.isFrozen(r.config))
})

t.test('RATE_LIMITS turns limits off or overrides some', async (t) => {
  const off = parseConfig({ RATE_LIMITS: 'off' })
  t.ok(off.ok && off.config.rateLimits === null)
  const some = parseConfig({ RATE_LIMITS: 'bind=5/30, rpc=1000/10' })
  t.ok(some.ok)
  if (some.ok) t.same(some.config.rateLimits, { ...DEFAULT_RATE_LIMITS, bind: { points: 5, seconds: 30 }, rpc: { points: 1000, seconds: 10 } })
})

t.test('every problem is listed at once', async (t) => {
  const r = parseConfig({
    PORT: 'eighty',
    REDIS_URL: 'http://x',
    MAX_CODES_PER_REQUEST: '0',
    TRUST_PROXY: '10.0.0.0/8, not-an-ip, 1.2.3.4/33',
    RATE_LIMITS: 'bind=ten',
    API_KEY: 'short',
  })
  t.notOk(r.ok)
  if (r.ok) return
  t.same(r.problems, [
    'PORT: PORT must be a whole number',
    'REDIS_URL: REDIS_URL must be a URL with protocol redis: or rediss:',
    'MAX_CODES_PER_REQUEST: MAX_CODES_PER_REQUEST must be at least 1',
    'API_KEY: API_KEY must be at least 32 characters',
    'RATE_LIMITS: RATE_LIMITS must be off or a comma list like bind=10/60,log=30/60,callbacks=100/10,rpc=100/10',
  ])
  const proxies = parseConfig({ TRUST_PROXY: '10.0.0.0/8, not-an-ip, 1.2.3.4/33, ::1' })
  t.notOk(proxies.ok)
  if (!proxies.ok) t.same(proxies.problems, ['TRUST_PROXY: "not-an-ip" is not an IP address or CIDR range', 'TRUST_PROXY: "1.2.3.4/33" is not an IP address or CIDR range'])
})

t.test('shard ids must be below the shard count', async (t) => {
  const r = parseConfig({ SHARD_COUNT: '2', SHARD_IDS: '0,2' })
  t.notOk(r.ok)
  const ok = parseConfig({ SHARD_COUNT: '4', SHARD_IDS: '2,3' })
  t.ok(ok.ok && ok.config.shardIds.join() === '2,3')
  const all = parseConfig({ SHARD_COUNT: '3' })
  t.ok(all.ok && all.config.shardIds.join() === '0,1,2')
})

t.test('the bootstrap API_KEY must be at least 32 characters', async (t) => {
  const short = parseConfig({ API_KEY: 'k'.repeat(31) })
  t.same(short, { ok: false, problems: ['API_KEY: API_KEY must be at least 32 characters'] })
  const enough = parseConfig({ API_KEY: 'k'.repeat(32) })
  t.ok(enough.ok && enough.config.apiKey === 'k'.repeat(32))
  const none = parseConfig({})
  t.ok(none.ok && none.config.apiKey === '', 'unset is fine: keys made with `keys create` work without it')
})

t.test('NODE_ENV and SANDBOX decide whether serve may use the sandbox', async (t) => {
  const plain = parseConfig({})
  t.ok(plain.ok && !plain.config.production && plain.config.sandbox === 'auto')
  const prod = parseConfig({ NODE_ENV: 'production', SANDBOX: ' ON ' })
  t.ok(prod.ok && prod.config.production && prod.config.sandbox === 'on')
  const dev = parseConfig({ NODE_ENV: 'development', SANDBOX: 'off' })
  t.ok(dev.ok && !dev.config.production && dev.config.sandbox === 'off')
  t.same(parseConfig({ SANDBOX: 'yes' }), { ok: false, problems: ['SANDBOX: SANDBOX must be on, off or auto'] })
})

t.test('OPEN_CLOUD_API unset: the sandbox\'s Open Cloud in sandbox mode (push test never reaches Roblox there), else Roblox\'s', async (t) => {
  const cases: Array<[string, Record<string, string>, string]> = [
    ['no token, outside production: the sandbox on SANDBOX_PORT', {}, 'http://127.0.0.1:8090/open-cloud'],
    ['another SANDBOX_PORT', { SANDBOX_PORT: '9191' }, 'http://127.0.0.1:9191/open-cloud'],
    ['SANDBOX=on with a token', { SANDBOX: 'on', DISCORD_TOKEN: 'a-token' }, 'http://127.0.0.1:8090/open-cloud'],
    ['a token', { DISCORD_TOKEN: 'a-token' }, 'https://apis.roblox.com'],
    ['production without a token', { NODE_ENV: 'production' }, 'https://apis.roblox.com'],
    ['SANDBOX=off', { SANDBOX: 'off' }, 'https://apis.roblox.com'],
    ['set explicitly, in sandbox mode too', { OPEN_CLOUD_API: 'https://open-cloud.example/' }, 'https://open-cloud.example'],
  ]
  for (const [name, env, api] of cases) {
    const r = parseConfig(env)
    t.equal(r.ok ? r.config.openCloudApi : r.problems.join('; '), api, name)
  }
})

t.test('each LOG_DESTINATION_* is checked on its own, with DISCORD_API, in the order of the variables', async (t) => {
  const hook = 'https://discord.com/api/webhooks/100000000000000001/tok'
  const r = parseConfig({
    PORT: 'x',
    LOG_DESTINATION_SERVER: 'nope',
    LOG_DESTINATION_INGAME: 'https://evil.example/api/webhooks/100000000000000001/tok',
    LOG_DESTINATION_MODERATION: `${hook}?x=1`,
    SAFETY_REVIEW_INFRACTIONS: '5',
    SAFETY_UNSAFE_INFRACTIONS: '2',
  })
  t.same(r, {
    ok: false,
    problems: [
      'PORT: PORT must be a whole number',
      'LOG_DESTINATION_SERVER: LOG_DESTINATION_SERVER must be a Discord channel id (17-20 digits) or a webhook URL like https://discord.com/api/webhooks/ID/TOKEN',
      'LOG_DESTINATION_INGAME: LOG_DESTINATION_INGAME must be a webhook URL on discord.com (https), on loopback, or on the DISCORD_API host',
      'LOG_DESTINATION_MODERATION: LOG_DESTINATION_MODERATION must be a webhook URL without a query, fragment or credentials',
      'SAFETY_UNSAFE_INFRACTIONS: SAFETY_UNSAFE_INFRACTIONS must be at least SAFETY_REVIEW_INFRACTIONS (or 0 to turn that level off)',
    ],
  })
  const proxied = 'http://fake.test:9/api/webhooks/100000000000000001/tok'
  for (const name of ['LOG_DESTINATION_SERVER', 'LOG_DESTINATION_INGAME', 'LOG_DESTINATION_MODERATION'] as const) {
    const trusted = parseConfig({ [name]: proxied, DISCORD_API: 'http://fake.test:9' })
    t.ok(trusted.ok, `${name}: a webhook on the DISCORD_API host is trusted`)
    t.same(parseConfig({ [name]: proxied, DISCORD_API: 'http://other.test:9' }), {
      ok: false,
      problems: [`${name}: ${name} must be a webhook URL on discord.com (https), on loopback, or on the DISCORD_API host`],
    })
    t.same(parseConfig({ [name]: 'x' }), {
      ok: false,
      problems: [`${name}: ${name} must be a Discord channel id (17-20 digits) or a webhook URL like https://discord.com/api/webhooks/ID/TOKEN`],
    })
  }
  const all = parseConfig({ LOG_DESTINATION_SERVER: '100000000000000001', LOG_DESTINATION_INGAME: hook, LOG_DESTINATION_MODERATION: ' 100000000000000002 ' })
  t.ok(all.ok)
  if (all.ok) t.same(all.config.logDestinations, { server: '100000000000000001', ingame: hook, moderation: '100000000000000002' })
})
