/**
 * POST /api/v1/push/subscriptions against the real front, Redis and MariaDB: the contract's answer, the subscription
 * stored per (key, universe, server) and replaced by each call, an empty list ending it, 404 push_target_not_found,
 * 401, 422 and its own 429.
 */
import t from 'tap'
import { createPushSubscriptions } from '../../../src/redis/push-subscriptions.js'
import { buildApiKeyService, buildPushTargets } from '../../../src/runtime/services.js'
import { postJson, startStack, type Stack } from '../../helpers/stack.js'

const SECRET = 's'.repeat(40)
const UNIVERSE = 4567

let stack: Stack
let auth: string

const subscribe = (body: unknown, key: string | null = auth) => postJson(`${stack.api}/push/subscriptions`, body, key)

t.before(async () => {
  stack = await startStack(t, { env: { RATE_LIMITS: 'push=20/60', PUSH_SECRET: SECRET }, consumers: [] })
  auth = `Bearer ${stack.apiKey}`
  const added = await buildPushTargets(stack.db, SECRET, 'http://127.0.0.1:9').add('test-server', UNIVERSE, 'open-cloud-key-0123456789', 'test')
  if (!added.ok) throw new Error(`could not add the push target: ${added.reason}`)
})

t.test('a subscription is answered as the contract says and stored for the publisher', async (t) => {
  const res = await subscribe({ universe_id: UNIVERSE, server_id: 'job-1', codes: ['AB12', 'CD34', 'AB12'] })
  t.equal(res.status, 200)
  t.same(res.body, { status: 'subscribed', expires_in: 120 })
  const subs = createPushSubscriptions(stack.redis, stack.ctx.keys)
  const read = await subs.read(UNIVERSE)
  t.equal(read.subscriptions.length, 1)
  t.match(read.subscriptions[0], { serverId: 'job-1', codes: ['AB12', 'CD34'] }, 'each code once')
  const lifeMs = read.subscriptions[0]!.expiresAtMs - read.nowMs
  t.ok(lifeMs > 0 && lifeMs <= 120_000, `it lapses within expires_in (${lifeMs} ms)`)
  t.same(await subs.universes(), [UNIVERSE])
  const ttl = await stack.redis.pttl(stack.ctx.keys.pushSubscriptions(UNIVERSE))
  t.ok(ttl > 0 && ttl <= 120_000, 'the hash itself expires')

  t.test('renewing replaces the server\'s codes and extends it; another server is kept apart', async (t) => {
    t.equal((await subscribe({ universe_id: UNIVERSE, server_id: 'job-1', codes: ['EF56'] })).status, 200)
    t.equal((await subscribe({ universe_id: UNIVERSE, server_id: 'job-2', codes: ['AB12'] })).status, 200)
    const after = await subs.read(UNIVERSE)
    const byServer = Object.fromEntries(after.subscriptions.map((s) => [s.serverId, s.codes]))
    t.same(byServer, { 'job-1': ['EF56'], 'job-2': ['AB12'] })
  })

  t.test('an empty list ends that server\'s subscription', async (t) => {
    const res = await subscribe({ universe_id: UNIVERSE, server_id: 'job-2', codes: [] })
    t.equal(res.status, 200)
    t.same(res.body, { status: 'subscribed', expires_in: 120 })
    t.same(
      (await subs.read(UNIVERSE)).subscriptions.map((s) => s.serverId),
      ['job-1'],
    )
  })
})

t.test('404 push_target_not_found for a universe the key has no target for', async (t) => {
  const res = await subscribe({ universe_id: 9999, server_id: 'job-1', codes: ['AB12'] })
  t.equal(res.status, 404)
  t.match(res.body, { detail: { status: 'error', code: 'push_target_not_found', message: /universe 9999.*push add --key test-server --universe 9999/ } })

  t.test('a key revoked after its target was added is refused outright (401)', async (t) => {
    const keys = buildApiKeyService(stack.db, stack.redis, stack.ctx.keys)
    const made = await keys.create('short-lived')
    if (!made.ok) throw new Error('key')
    const added = await buildPushTargets(stack.db, SECRET, 'http://127.0.0.1:9').add('short-lived', UNIVERSE, 'open-cloud-key-0123456789', 'test')
    t.ok(added.ok)
    t.equal((await subscribe({ universe_id: UNIVERSE, server_id: 'x', codes: ['AB12'] }, `Bearer ${made.key}`)).status, 200)
    await keys.revoke('short-lived')
    t.equal((await subscribe({ universe_id: UNIVERSE, server_id: 'x', codes: ['AB12'] }, `Bearer ${made.key}`)).status, 401)
  })
})

t.test('401 without a valid key, in the usual shape', async (t) => {
  const missing = await subscribe({ universe_id: UNIVERSE, server_id: 'job-1', codes: [] }, null)
  t.equal(missing.status, 401)
  t.match(missing.body, { detail: { status: 'error', code: 'unauthorized' } })
  t.equal(missing.headers.get('www-authenticate'), 'Bearer')
  t.equal((await subscribe({ universe_id: UNIVERSE, server_id: 'job-1', codes: [] }, 'Bearer pl_aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb')).status, 401)
})

t.test('422 for bodies the contract refuses, naming the field', async (t) => {
  const cases: Array<[string, unknown, string]> = [
    ['201 codes', { universe_id: UNIVERSE, server_id: 's', codes: Array.from({ length: 201 }, () => 'AB12') }, 'codes'],
    ['a lowercase code', { universe_id: UNIVERSE, server_id: 's', codes: ['ab12'] }, 'codes'],
    ['no server_id', { universe_id: UNIVERSE, codes: [] }, 'server_id'],
    ['a 65-character server_id', { universe_id: UNIVERSE, server_id: 'x'.repeat(65), codes: [] }, 'server_id'],
    ['universe_id as text', { universe_id: String(UNIVERSE), server_id: 's', codes: [] }, 'universe_id'],
    ['universe_id 0', { universe_id: 0, server_id: 's', codes: [] }, 'universe_id'],
  ]
  for (const [what, body, field] of cases) {
    const res = await subscribe(body)
    t.equal(res.status, 422, what)
    t.match(res.body, { detail: { code: 'validation_failed', issues: [{ field }] } }, what)
  }
  const array = await subscribe([])
  t.equal(array.status, 422, 'a JSON array')
  t.equal((await subscribe('{"universe_id":')).status, 422, 'not JSON')
})

t.test('its own rate limit: 429 with Retry-After once push= is spent', async (t) => {
  let limited
  for (let i = 0; i < 30; i++) {
    limited = await subscribe({ universe_id: UNIVERSE, server_id: 'job-1', codes: ['AB12'] })
    if (limited.status === 429) break
  }
  t.equal(limited!.status, 429)
  t.match(limited!.body, { detail: { code: 'rate_limited', message: /20 requests per 60 seconds/ } })
  t.match(limited!.headers.get('retry-after'), /^\d+$/)
})
