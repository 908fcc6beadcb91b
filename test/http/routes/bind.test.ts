import t from 'tap'
import { createSandbox, type Sandbox } from '../../../src/sandbox/create-sandbox.js'
import { getText, postJson, startStack, type Stack } from '../../helpers/stack.js'

let stack: Stack
let sandbox: Sandbox
let auth: string
let nextChatUser = 200000000000000000n
const INVALIDATED = 'This code was invalidated and can no longer link any account. Its owner can get a new code in Discord (/unlink, then /code) or contact support; do not retry.'

async function freshCode(): Promise<string> {
  return (await stack.codes.issue(String(++nextChatUser))).code.code
}

const bind = (body: unknown, key: string | null = auth) => postJson(`${stack.api}/bind`, body, key)

async function control(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${sandbox.url}/control/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  if (!res.ok) throw new Error(`sandbox ${path}: ${res.status}`)
}

t.before(async () => {
  sandbox = await createSandbox({ port: 0 })
  t.teardown(() => sandbox.close())
  stack = await startStack(t, { env: { RATE_LIMITS: 'off', ROBLOX_USERS_API: sandbox.robloxBase, API_KEY: 'bootstrap-key-for-tests-0000000000001' } })
  auth = `Bearer ${stack.apiKey}`
  await control('roblox-users', { id: 156, name: 'Builderman' })
})

t.test('bind table', async (t) => {
  t.test('an unbound code is bound to the account that sends it', async (t) => {
    const code = await freshCode()
    const res = await bind({ code, platform_username: 'Player_One', platform_user_id: 1001 })
    t.equal(res.status, 200)
    t.same(res.body, { status: 'bound', platform_username: 'Player_One' })
    const stored = await stack.codes.show(code)
    t.equal(stored?.platformUserId, '1001')
    t.equal(stored?.platformUsername, 'Player_One')
    t.equal(stored?.state, 'active')
    t.ok(stored?.boundAt instanceof Date)
  })

  t.test('the same account again gives already_bound; a new username of that account is stored', async (t) => {
    const code = await freshCode()
    await bind({ code, platform_username: 'Renamer', platform_user_id: 1002 })
    const again = await bind({ code, platform_username: 'Renamer', platform_user_id: 1002 })
    t.equal(again.status, 200)
    t.same(again.body, { status: 'already_bound', platform_username: 'Renamer' })
    const renamed = await bind({ code, platform_username: 'Renamed_Now', platform_user_id: 1002 })
    t.same(renamed.body, { status: 'already_bound', platform_username: 'Renamed_Now' })
    t.equal((await stack.codes.show(code))?.platformUsername, 'Renamed_Now')
    t.equal((await getText(`${stack.api}/callbacks/${code}`)).text, `{${code};\nRenamed_Now;\nNo activity detected;\n}\n`)
  })

  t.test('a different account burns the code: 409 invalidated, a bind_conflict entry names both accounts', async (t) => {
    const code = await freshCode()
    await bind({ code, platform_username: 'Owner', platform_user_id: 1003 })
    const res = await bind({ code, platform_username: 'Intruder', platform_user_id: 6666 })
    t.equal(res.status, 409)
    t.same(res.body, { detail: { status: 'invalidated', message: INVALIDATED } })
    const stored = await stack.codes.show(code)
    t.equal(stored?.state, 'invalidated')
    t.equal(stored?.platformUserId, '1003', 'the original link is kept for staff')
    const entries = await stack.db.selectFrom('log_entries').selectAll().where('code', '=', code).execute()
    t.equal(entries.length, 1)
    t.equal(entries[0]!.category, 'moderation')
    t.equal(entries[0]!.event_type, 'bind_conflict')
    t.equal(entries[0]!.description, `Code ${code} is bound to Owner (1003); Intruder (6666) tried to bind it. The code is now invalidated.`)
    t.equal(entries[0]!.source, 'api:test-server')
  })

  t.test('an invalidated code stays invalidated for any account, the owner included', async (t) => {
    const code = await freshCode()
    await bind({ code, platform_username: 'Owner_Two', platform_user_id: 1004 })
    await bind({ code, platform_username: 'Intruder', platform_user_id: 6666 })
    for (const [name, id] of [['Owner_Two', 1004], ['Someone', 7777]] as const) {
      const res = await bind({ code, platform_username: name, platform_user_id: id })
      t.equal(res.status, 409)
      t.same(res.body, { detail: { status: 'invalidated', message: INVALIDATED } })
    }
    t.equal(await stack.db.selectFrom('log_entries').where('code', '=', code).select((eb) => eb.fn.countAll().as('n')).executeTakeFirst().then((r) => Number(r?.n)), 1)
  })

  t.test('a banned code is not linked: 403 banned', async (t) => {
    const code = await freshCode()
    await stack.codes.act(code, 'ban', { source: 'test' })
    const res = await bind({ code, platform_username: 'Hopeful', platform_user_id: 1005 })
    t.equal(res.status, 403)
    t.same(res.body, { detail: { status: 'banned', message: 'this code is banned; contact support' } })
    t.equal((await stack.codes.show(code))?.platformUserId, null)
  })

  t.test('an unknown or revoked code gives 404 not_found', async (t) => {
    const res = await bind({ code: 'ZZZZ', platform_username: 'Nobody', platform_user_id: 1006 })
    t.equal(res.status, 404)
    t.same(res.body, { detail: { status: 'not_found', message: 'no such code: check the code shown by the /code command' } })
    const code = await freshCode()
    await stack.codes.act(code, 'revoke', { source: 'test' })
    t.equal((await bind({ code, platform_username: 'Nobody', platform_user_id: 1006 })).status, 404)
  })

  t.test('two concurrent binds of one code by different accounts never both win', async (t) => {
    for (let round = 0; round < 5; round++) {
      const code = await freshCode()
      const results = await Promise.all([
        bind({ code, platform_username: 'Racer_A', platform_user_id: 2001 }),
        bind({ code, platform_username: 'Racer_B', platform_user_id: 2002 }),
      ])
      t.same(results.map((r) => r.status).sort(), [200, 409], `round ${round}`)
      t.equal((await stack.codes.show(code))?.state, 'invalidated')
    }
  })

  t.test('two concurrent binds by the same account: one bound, one already_bound', async (t) => {
    const code = await freshCode()
    const results = await Promise.all([
      bind({ code, platform_username: 'Twin', platform_user_id: 2003 }),
      bind({ code, platform_username: 'Twin', platform_user_id: 2003 }),
    ])
    t.same(results.map((r) => (r.body as { status: string }).status).sort(), ['already_bound', 'bound'])
  })
})

t.test('username resolution through the Roblox users API', async (t) => {
  t.test('without platform_user_id the id is resolved by exact name, and the canonical name is stored', async (t) => {
    const code = await freshCode()
    const res = await bind({ code, platform_username: 'builderman' })
    t.equal(res.status, 200)
    t.same(res.body, { status: 'bound', platform_username: 'Builderman' })
    t.equal((await stack.codes.show(code))?.platformUserId, '156')
  })

  t.test('an unknown username gives 422 error', async (t) => {
    const code = await freshCode()
    const res = await bind({ code, platform_username: 'No_Such_Player' })
    t.equal(res.status, 422)
    t.same(res.body, { detail: { status: 'error', code: 'unknown_username', message: 'no Roblox user is named No_Such_Player' } })
    t.equal((await stack.codes.show(code))?.platformUserId, null)
  })

  t.test('a failing Roblox API gives 502 error and links nothing', async (t) => {
    await control('roblox-fail', { status: 503 })
    t.teardown(() => control('roblox-fail', { status: null }))
    const code = await freshCode()
    const res = await bind({ code, platform_username: 'Someone_New' })
    t.equal(res.status, 502)
    t.same(res.body, { detail: { status: 'error', code: 'upstream_failed', message: 'could not resolve the username: Roblox users API answered HTTP 503' } })
    t.equal((await stack.codes.show(code))?.platformUserId, null)
  })
})

t.test('validation and authentication', async (t) => {
  const cases: Array<[string, unknown, string]> = [
    ['missing code', { platform_username: 'Abc', platform_user_id: 1 }, 'code is required'],
    ['lowercase code', { code: 'abcd', platform_username: 'Abc', platform_user_id: 1 }, 'code must be 4 characters, each A-Z or 0-9'],
    ['5-character code', { code: 'ABCDE', platform_username: 'Abc', platform_user_id: 1 }, 'code must be 4 characters, each A-Z or 0-9'],
    ['numeric code', { code: 1234, platform_username: 'Abc', platform_user_id: 1 }, 'code must be a string'],
    ['missing username', { code: 'ABCD' }, 'platform_username is required'],
    ['username with a space', { code: 'ABCD', platform_username: 'a b c' }, 'platform_username must be a Roblox username: 3-20 letters, digits or _'],
    ['username with a newline', { code: 'ABCD', platform_username: 'abc\n{X;' }, 'platform_username must be a Roblox username: 3-20 letters, digits or _'],
    ['negative id', { code: 'ABCD', platform_username: 'Abc', platform_user_id: -1 }, 'platform_user_id must be positive'],
    ['fractional id', { code: 'ABCD', platform_username: 'Abc', platform_user_id: 1.5 }, 'platform_user_id must be a whole number'],
    ['id as a string', { code: 'ABCD', platform_username: 'Abc', platform_user_id: '15' }, 'platform_user_id must be a number'],
    ['an array body', [1, 2], 'body must be a JSON object'],
  ]
  for (const [name, body, message] of cases) {
    t.test(`${name} gives 422 error`, async (t) => {
      const res = await bind(body)
      t.equal(res.status, 422)
      t.equal(res.body.detail.status, 'error')
      t.equal(res.body.detail.code, 'validation_failed')
      t.equal(res.body.detail.message, `invalid body: ${message}`)
    })
  }

  t.test('invalid JSON gives 422 error', async (t) => {
    const res = await bind('{"code": "AB')
    t.equal(res.status, 422)
    t.same(res.body, { detail: { status: 'error', code: 'invalid_json', message: 'the body is not valid JSON' } })
  })

  t.test('a body over 16 KiB gives 413', async (t) => {
    const res = await bind({ code: 'ABCD', platform_username: 'Abc', pad: 'x'.repeat(17_000) })
    t.equal(res.status, 413)
    t.same(res.body, { detail: { status: 'error', code: 'body_too_large', message: 'the body must be at most 16384 bytes', max_bytes: 16384 } })
  })

  t.test('a missing, malformed, unknown or revoked key gives 401', async (t) => {
    const body = { code: 'ABCD', platform_username: 'Abc', platform_user_id: 1 }
    const missing = await bind(body, null)
    t.equal(missing.status, 401)
    t.equal(missing.headers.get('www-authenticate'), 'Bearer')
    t.same(missing.body, { detail: { status: 'error', code: 'unauthorized', message: 'missing bearer token: send Authorization: Bearer <API_KEY>' } })
    // One character of the secret changed (to one it is not: a key ending in x must not come back unchanged).
    const wrongLast = stack.apiKey.endsWith('x') ? 'y' : 'x'
    for (const key of ['Basic abc', 'Bearer nope', `Bearer ${stack.apiKey.slice(0, -1)}${wrongLast}`, stack.apiKey]) {
      const res = await bind(body, key)
      t.equal(res.status, 401, key.slice(0, 12))
      t.same(res.body, { detail: { status: 'error', code: 'unauthorized', message: 'invalid API key' } })
    }
  })

  t.test('the bootstrap API_KEY from the environment is accepted', async (t) => {
    const res = await bind({ code: 'ZZZZ', platform_username: 'Abc', platform_user_id: 1 }, 'Bearer bootstrap-key-for-tests-0000000000001')
    t.equal(res.status, 404)
  })
})

t.test('without a running worker the bind times out with 503 and Retry-After', async (t) => {
  const idle = await startStack(t, { env: { RATE_LIMITS: 'off', BIND_TIMEOUT_MS: '300' }, consumers: [] })
  const res = await postJson(`${idle.api}/bind`, { code: 'ABCD', platform_username: 'Abc', platform_user_id: 1 }, `Bearer ${idle.apiKey}`)
  t.equal(res.status, 503)
  t.equal(res.headers.get('retry-after'), '2')
  t.same(res.body, { detail: { status: 'error', code: 'bind_timeout', message: 'the bind is taking too long; retry (a retry is safe)' } })
})
