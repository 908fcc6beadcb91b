import t from 'tap'
import { postJson, startStack, eventually, type Stack } from '../../helpers/stack.js'

let stack: Stack
let auth: string
const log = (category: string, body: unknown, key: string | null = auth) => postJson(`${stack.api}/log/${category}`, body, key)

const stored = (where: { event_type: string }) =>
  eventually(async () => {
    const row = await stack.db.selectFrom('log_entries').selectAll().where('event_type', '=', where.event_type).executeTakeFirst()
    return row
  }, 5000, `log entry ${where.event_type}`)

t.before(async () => {
  stack = await startStack(t, { env: { RATE_LIMITS: 'off' } })
  auth = `Bearer ${stack.apiKey}`
})

t.test('accepted events', async (t) => {
  for (const category of ['server', 'ingame', 'moderation']) {
    t.test(`a ${category} event answers logged and is stored with every field`, async (t) => {
      const before = Date.now()
      const res = await log(category, {
        event_type: `evt_${category}`,
        description: 'Line one\nline two',
        platform_username: 'Player_1',
        platform_user_id: 12345,
        issued_by: 'AntiCheat v2',
      })
      t.equal(res.status, 200)
      t.same(res.body, { status: 'logged', category })
      const row = await stored({ event_type: `evt_${category}` })
      t.equal(row.category, category)
      t.equal(row.description, 'Line one\nline two')
      t.equal(row.platform_username, 'Player_1')
      t.equal(String(row.platform_user_id), '12345')
      t.equal(row.issued_by, 'AntiCheat v2')
      t.equal(row.code, null)
      t.equal(row.source, 'api:test-server')
      t.equal(row.source_ip, '127.0.0.1')
      t.ok(row.received_at.getTime() >= before - 1000 && row.received_at.getTime() <= Date.now())
    })
  }

  t.test('a moderation event with an existing code becomes an infraction of the linked user', async (t) => {
    const { code } = await stack.codes.issue('300000000000000001')
    await stack.codes.bind(code.code, { platformUserId: '4242', platformUsername: 'Rule_Breaker' }, { source: 'test' })
    const res = await log('moderation', { event_type: 'kick', description: 'Exploiting', issued_by: 'ModBob', code: code.code })
    t.equal(res.status, 200)
    const infraction = await eventually(
      () => stack.db.selectFrom('infractions').selectAll().where('code', '=', code.code).executeTakeFirst(),
      5000,
      'infraction',
    )
    t.equal(infraction.chat_user_id, '300000000000000001')
    t.equal(String(infraction.platform_user_id), '4242')
    t.equal(infraction.platform_username, 'Rule_Breaker')
    t.equal(infraction.event_type, 'kick')
    t.equal(infraction.description, 'Exploiting')
    t.equal(infraction.issued_by, 'ModBob')
    const entry = await stack.db.selectFrom('log_entries').selectAll().where('id', '=', infraction.log_entry_id).executeTakeFirstOrThrow()
    t.equal(entry.event_type, 'kick')
  })

  t.test('a moderation event with an unknown code is stored without an infraction; other categories never make one', async (t) => {
    const { code } = await stack.codes.issue('300000000000000002')
    t.equal((await log('moderation', { event_type: 'warn_unknown', description: 'x', code: 'QQQQ' })).status, 200)
    t.equal((await log('ingame', { event_type: 'ingame_with_code', description: 'x', code: code.code })).status, 200)
    const a = await stored({ event_type: 'warn_unknown' })
    const b = await stored({ event_type: 'ingame_with_code' })
    t.equal(a.code, 'QQQQ')
    t.equal(b.code, code.code)
    const infractions = await stack.db.selectFrom('infractions').selectAll().where('log_entry_id', 'in', [a.id, b.id]).execute()
    t.same(infractions, [])
  })

  t.test('null optional fields are treated as absent', async (t) => {
    const res = await log('server', { event_type: 'boot', description: 'Server started', platform_username: null, platform_user_id: null, issued_by: null, code: null })
    t.equal(res.status, 200)
    const row = await stored({ event_type: 'boot' })
    t.equal(row.platform_username, null)
    t.equal(row.code, null)
  })
})

t.test('rejections', async (t) => {
  t.test('unknown category gives 400', async (t) => {
    const res = await log('chat', { event_type: 'x', description: 'y' })
    t.equal(res.status, 400)
    t.same(res.body, { detail: { status: 'error', code: 'unknown_category', message: 'unknown category "chat": use server, ingame or moderation' } })
  })

  t.test('invalid codes give 400', async (t) => {
    for (const code of ['abcd', 'ABC', 'ABCDE', 1234, '', 'AB D']) {
      const res = await log('moderation', { event_type: 'x', description: 'y', code })
      t.equal(res.status, 400, JSON.stringify(code))
      t.same(res.body, { detail: { status: 'error', code: 'invalid_code', message: 'invalid code: codes are exactly 4 characters, each A-Z or 0-9' } })
    }
  })

  t.test('missing or bad token gives 401', async (t) => {
    for (const key of [null, 'Bearer wrong', 'Token abc']) {
      const res = await log('server', { event_type: 'x', description: 'y' }, key)
      t.equal(res.status, 401)
      t.equal(res.body.detail.code, 'unauthorized')
    }
  })

  const invalid: Array<[string, unknown, string]> = [
    ['missing event_type', { description: 'y' }, 'event_type is required'],
    ['missing description', { event_type: 'x' }, 'description is required'],
    ['blank description', { event_type: 'x', description: '   ' }, 'description must not be blank'],
    ['zero platform_user_id', { event_type: 'x', description: 'y', platform_user_id: 0 }, 'platform_user_id must be positive'],
    ['negative platform_user_id', { event_type: 'x', description: 'y', platform_user_id: -5 }, 'platform_user_id must be positive'],
    ['event_type over 64 characters', { event_type: 'e'.repeat(65), description: 'y' }, 'event_type must be at most 64 characters'],
    ['event_type with a newline', { event_type: 'a\nb', description: 'y' }, 'event_type must not contain control characters or line breaks'],
    ['description over 4000 characters', { event_type: 'x', description: 'd'.repeat(4001) }, 'description must be at most 4000 characters'],
    ['description with NUL', { event_type: 'x', description: 'a\u0000b' }, 'description must not contain control characters'],
    ['issued_by over 100 characters', { event_type: 'x', description: 'y', issued_by: 'i'.repeat(101) }, 'issued_by must be at most 100 characters'],
    ['a string body', '"hello"', 'body must be a JSON object'],
  ]
  for (const [name, body, message] of invalid) {
    t.test(`${name} gives 422`, async (t) => {
      const res = await log('server', body)
      t.equal(res.status, 422)
      t.equal(res.body.detail.code, 'validation_failed')
      t.equal(res.body.detail.message, `invalid body: ${message}`)
    })
  }

  t.test('checks run in order: 401 before 400 category, 400 category before 422 body, 422 body before 400 code', async (t) => {
    t.equal((await log('chat', {}, null)).status, 401)
    t.equal((await log('chat', {})).status, 400)
    t.equal((await log('server', { code: 'bad' })).status, 422)
  })

  t.test('a body over 16 KiB gives 413 and non-JSON content types give 415', async (t) => {
    const big = await log('server', { event_type: 'x', description: 'd'.repeat(17_000) })
    t.equal(big.status, 413)
    const form = await postJson(`${stack.api}/log/server`, 'event_type=x', auth, { 'content-type': 'application/x-www-form-urlencoded' })
    t.equal(form.status, 415)
    t.same(form.body, { detail: { status: 'error', code: 'unsupported_media_type', message: 'the body must be JSON: send Content-Type: application/json' } })
  })

  t.test('nothing rejected is stored', async (t) => {
    const n = await stack.db.selectFrom('log_entries').select((eb) => eb.fn.countAll().as('n')).where('event_type', 'in', ['e'.repeat(65), 'x']).executeTakeFirst()
    t.equal(Number(n?.n), 0)
  })
})
