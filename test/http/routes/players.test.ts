/** GET /api/v1/players/{platform_user_id} against the real front and MariaDB: each status, an unknown id, 400, 401, 429. */
import t from 'tap'
import { getText, startStack, type Stack } from '../../helpers/stack.js'

let stack: Stack
let auth: string

const players = async (path: string, key: string | null = auth) => {
  const res = await getText(`${stack.api}/players${path}`, key === null ? {} : { authorization: key })
  return { status: res.status, body: JSON.parse(res.text) as any, headers: res.headers }
}

const actor = { source: 'test' }

async function boundCode(chatUser: string, platformUserId: string, name: string): Promise<string> {
  const { code } = await stack.codes.issue(chatUser)
  const bound = await stack.codes.bind(code.code, { platformUserId, platformUsername: name }, actor)
  if (bound.status !== 'bound') throw new Error(`bind: ${bound.status}`)
  return code.code
}

t.before(async () => {
  stack = await startStack(t, { env: { RATE_LIMITS: 'players=12/60' }, consumers: [] })
  auth = `Bearer ${stack.apiKey}`
})

t.test('a returning player gets every code bound to their account, with its status', async (t) => {
  const bound = await boundCode('700000000000000001', '156', 'Builderman')
  const paused = await boundCode('700000000000000002', '156', 'Builderman')
  const banned = await boundCode('700000000000000003', '156', 'Builderman')
  const invalidated = await boundCode('700000000000000004', '156', 'Builderman')
  const revoked = await boundCode('700000000000000005', '156', 'Builderman')
  t.ok((await stack.codes.act(paused, 'pause', actor)).ok)
  t.ok((await stack.codes.act(banned, 'ban', actor)).ok)
  t.equal((await stack.codes.bind(invalidated, { platformUserId: '999', platformUsername: 'Intruder' }, actor)).status, 'invalidated')
  t.ok((await stack.codes.act(revoked, 'revoke', actor)).ok)
  await boundCode('700000000000000006', '157', 'Someone_Else')

  const res = await players('/156')
  t.equal(res.status, 200)
  t.equal(res.body.platform_user_id, 156)
  const byCode = Object.fromEntries(res.body.codes.map((c: { code: string; status: string; platform_username: string }) => [c.code, c]))
  t.same(Object.keys(byCode).sort(), [bound, paused, banned, invalidated].sort(), 'the revoked code and the other player\'s are not listed')
  t.same(byCode[bound], { code: bound, status: 'bound', platform_username: 'Builderman' })
  t.equal(byCode[paused].status, 'paused')
  t.equal(byCode[banned].status, 'banned')
  t.equal(byCode[invalidated].status, 'invalidated')
})

t.test('an unknown id gets an empty list', async (t) => {
  const res = await players('/424242')
  t.equal(res.status, 200)
  t.same(res.body, { platform_user_id: 424242, codes: [] })
})

t.test('400 for an id that is not one, after the key', async (t) => {
  for (const path of ['/abc', '/0', '/-1', '/1.5', '/12345678901234567', '/%31%35%36', '', '/']) {
    const res = await players(path)
    t.equal(res.status, 400, path)
    t.match(res.body, { detail: { code: 'invalid_platform_user_id' } }, path)
  }
  t.equal((await players('/abc', null)).status, 401, 'the key is checked first')
})

t.test('401 without a valid key', async (t) => {
  const res = await players('/156', null)
  t.equal(res.status, 401)
  t.match(res.body, { detail: { code: 'unauthorized' } })
})

t.test('its own rate limit', async (t) => {
  let last
  for (let i = 0; i < 20; i++) {
    last = await players('/156')
    if (last.status === 429) break
  }
  t.equal(last!.status, 429)
  t.match(last!.body, { detail: { code: 'rate_limited', message: /12 requests per 60 seconds/ } })
})
