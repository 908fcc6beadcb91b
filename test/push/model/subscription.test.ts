import t from 'tap'
import * as v from 'valibot'
import { distinctCodes, MAX_SUBSCRIPTION_CODES, SubscriptionRequestSchema, summarize } from '../../../src/push/model/subscription.js'

const valid = { universe_id: 4567, server_id: '3b1a2c4d-0000-4e5f-8a9b-0123456789ab', codes: ['AB12', 'CD34'] }
const ok = (body: unknown) => v.safeParse(SubscriptionRequestSchema, body).success

t.test('the request body', async (t) => {
  t.ok(ok(valid))
  t.ok(ok({ ...valid, codes: [] }), 'an empty list ends the subscription')
  t.ok(ok({ ...valid, codes: Array.from({ length: MAX_SUBSCRIPTION_CODES }, () => 'AB12') }), '200 codes')
  t.ok(ok({ ...valid, server_id: 'x' }))
  t.ok(ok({ ...valid, universe_id: Number.MAX_SAFE_INTEGER }))
  const refused: Array<[string, unknown]> = [
    ['201 codes', { ...valid, codes: Array.from({ length: 201 }, () => 'AB12') }],
    ['a lowercase code', { ...valid, codes: ['ab12'] }],
    ['a 5-character code', { ...valid, codes: ['AB123'] }],
    ['%26 in a code', { ...valid, codes: ['A%26B'] }],
    ['a code with a newline', { ...valid, codes: ['AB1\n'] }],
    ['codes not a list', { ...valid, codes: 'AB12' }],
    ['a number in codes', { ...valid, codes: [1234] }],
    ['no codes', { universe_id: 1, server_id: 'x' }],
    ['universe 0', { ...valid, universe_id: 0 }],
    ['a negative universe', { ...valid, universe_id: -5 }],
    ['a fractional universe', { ...valid, universe_id: 1.5 }],
    ['a universe as text', { ...valid, universe_id: '4567' }],
    ['a universe past 2^53', { ...valid, universe_id: 2 ** 60 }],
    ['an empty server id', { ...valid, server_id: '' }],
    ['a 65-character server id', { ...valid, server_id: 'x'.repeat(65) }],
    ['a server id with a space', { ...valid, server_id: 'a b' }],
    ['a server id with an emoji', { ...valid, server_id: '🎮' }],
    ['a 4,000-character server id', { ...valid, server_id: 'x'.repeat(4000) }],
  ]
  for (const [what, body] of refused) t.notOk(ok(body), what)
})

t.test('a server declaring a code twice holds it once', async (t) => {
  t.same(distinctCodes(['AB12', 'CD34', 'AB12']), ['AB12', 'CD34'])
})

t.test('a universe sums its servers and their distinct codes; a server with no code is not counted', async (t) => {
  const s = (serverId: string, codes: string[]) => ({ keyId: 'k', serverId, expiresAtMs: 1, codes })
  const summary = summarize([s('a', ['AB12', 'CD34']), s('b', ['CD34']), s('c', [])])
  t.equal(summary.servers, 2)
  t.same([...summary.codes].sort(), ['AB12', 'CD34'])
  t.same(summarize([]), { servers: 0, codes: new Set() })
})
