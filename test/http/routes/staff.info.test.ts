import t from 'tap'
import { eventually, getText, postJson, startStack, type Stack } from '../../helpers/stack.js'

let stack: Stack
let auth: string

const info = async (path: string, key: string | null = auth) => {
  const res = await getText(`${stack.api}/info${path}`, key === null ? {} : { authorization: key })
  return { status: res.status, body: JSON.parse(res.text) as any, headers: res.headers }
}

const infractionsOf = (code: string, n: number) =>
  eventually(async () => {
    const rows = await stack.db.selectFrom('infractions').select('id').where('code', '=', code).execute()
    return rows.length >= n ? rows : undefined
  }, 5000, `${n} infractions`)

t.before(async () => {
  stack = await startStack(t, { env: { RATE_LIMITS: 'off' }, consumers: ['log'] })
  auth = `Bearer ${stack.apiKey}`
})

t.test('info on a linked code shows its state and its infractions newest first, paged', async (t) => {
  const { code } = await stack.codes.issue('700000000000000001')
  await stack.codes.bind(code.code, { platformUserId: '4242', platformUsername: 'Rule_Breaker' }, { source: 'test' })
  for (const n of [1, 2, 3, 4, 5]) {
    const res = await postJson(`${stack.api}/log/moderation`, { event_type: `warn_${n}`, description: `warning ${n}`, issued_by: 'ModBob', code: code.code }, auth)
    t.equal(res.status, 200)
    // One at a time, so infraction ids follow the order the warnings were given in.
    await infractionsOf(code.code, n)
  }
  const all = await info(`/${code.code}`)
  t.equal(all.status, 200)
  const linked = await stack.codes.show(code.code)
  t.match(all.body, {
    code: code.code,
    state: 'active',
    platform_username: 'Rule_Breaker',
    platform_user_id: 4242,
    paused: false,
    linked_at: linked!.boundAt!.toISOString(),
    infraction_count: 5,
  })
  t.same(all.body.infractions.map((i: any) => i.event_type), ['warn_5', 'warn_4', 'warn_3', 'warn_2', 'warn_1'])
  t.match(all.body.infractions[0], { event_type: 'warn_5', description: 'warning 5', issued_by: 'ModBob', code: code.code, platform_username: 'Rule_Breaker', platform_user_id: 4242 })
  t.type(all.body.infractions[0].id, 'number')
  t.match(all.body.infractions[0].created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  t.notOk('next_before' in all.body, 'no next page')

  const first = await info(`/${code.code}?limit=2`)
  t.same(first.body.infractions.map((i: any) => i.event_type), ['warn_5', 'warn_4'])
  t.equal(first.body.next_before, first.body.infractions[1].id)
  const second = await info(`/${code.code}?limit=2&before=${first.body.next_before}`)
  t.same(second.body.infractions.map((i: any) => i.event_type), ['warn_3', 'warn_2'])
  const third = await info(`/${code.code}?limit=2&before=${second.body.next_before}`)
  t.same(third.body.infractions.map((i: any) => i.event_type), ['warn_1'])
  t.notOk('next_before' in third.body, 'the last page has no next_before')
  t.equal(third.body.infraction_count, 5, 'the count is of all pages')
})

t.test('a code without infractions, not linked, shows empty lists and nulls', async (t) => {
  const { code } = await stack.codes.issue('700000000000000002')
  const res = await info(`/${code.code}`)
  t.equal(res.status, 200)
  t.same(res.body, { code: code.code, state: 'active', platform_username: null, platform_user_id: null, paused: false, linked_at: null, infraction_count: 0, pardoned_count: 0, infractions: [] })
})

t.test('banned and paused codes show their state', async (t) => {
  const { code } = await stack.codes.issue('700000000000000003')
  await stack.codes.act(code.code, 'pause', { source: 'test' })
  t.match((await info(`/${code.code}`)).body, { state: 'active', paused: true })
  await stack.codes.act(code.code, 'ban', { source: 'test' })
  t.match((await info(`/${code.code}`)).body, { state: 'banned', paused: true })
})

t.test("a rotated user's infractions follow them to the new code; the revoked code is not found", async (t) => {
  const { code } = await stack.codes.issue('700000000000000004')
  await postJson(`${stack.api}/log/moderation`, { event_type: 'kick', description: 'before rotation', code: code.code }, auth)
  await infractionsOf(code.code, 1)
  const { code: fresh } = await stack.codes.rotate('700000000000000004', { source: 'test' })
  const res = await info(`/${fresh.code}`)
  t.equal(res.body.infraction_count, 1)
  t.same(res.body.infractions.map((i: any) => [i.event_type, i.code]), [['kick', code.code]])
  const old = await info(`/${code.code}`)
  t.equal(old.status, 404)
})

t.test('rejections', async (t) => {
  t.test('an unknown code is 404 with the JSON detail', async (t) => {
    const res = await info('/QQQQ')
    t.equal(res.status, 404)
    t.same(res.body, { detail: { status: 'not_found', code: 'not_found', message: 'no such code QQQQ' } })
  })
  t.test('lowercase or malformed codes are 400 invalid_code', async (t) => {
    for (const path of ['/ab12', '/ABC', '/ABCDE', '/AB%2012', '', '/']) {
      const res = await info(path)
      t.equal(res.status, 400, path)
      t.same(res.body, { detail: { status: 'error', code: 'invalid_code', message: 'invalid code: codes are exactly 4 characters, each A-Z or 0-9' } })
    }
  })
  t.test('a bad limit or before is 400 invalid_query', async (t) => {
    const { code } = await stack.codes.issue('700000000000000005')
    for (const query of ['limit=0', 'limit=101', 'limit=abc', 'limit=-1', 'before=abc', 'before=0']) {
      const res = await info(`/${code.code}?${query}`)
      t.equal(res.status, 400, query)
      t.equal(res.body.detail.code, 'invalid_query', query)
    }
    t.equal((await info(`/${code.code}?limit=100`)).status, 200)
  })
  t.test('a missing or bad key is 401', async (t) => {
    for (const key of [null, 'Bearer nope']) {
      const res = await info('/QQQQ', key)
      t.equal(res.status, 401)
      t.equal(res.body.detail.code, 'unauthorized')
      t.equal(res.headers.get('www-authenticate'), 'Bearer')
    }
  })
})

t.test('info has its own per-IP rate limit', async (t) => {
  const limited = await startStack(t, { env: { RATE_LIMITS: 'info=2/60' }, consumers: [] })
  const get = () => getText(`${limited.api}/info/QQQQ`, { authorization: `Bearer ${limited.apiKey}` })
  t.equal((await get()).status, 404)
  t.equal((await get()).status, 404)
  const res = await get()
  t.equal(res.status, 429)
  t.equal(JSON.parse(res.text).detail.code, 'rate_limited')
  t.ok(Number(res.headers.get('retry-after')) >= 1)
  const logged = await postJson(`${limited.api}/log/server`, { event_type: 'boot', description: 'up' }, `Bearer ${limited.apiKey}`)
  t.equal(logged.status, 200, 'the log budget is separate')
})
