/** The unknown-code budget in Redis (src/redis/unknown-code-budget.ts and scripts/unknown-code-budget.lua). */
import t from 'tap'
import { createUnknownCodeBudget } from '../../src/redis/unknown-code-budget.js'
import { startStack } from '../helpers/stack.js'

t.test('the unknown-code budget', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const keys = stack.ctx.keys

  t.test('0 turns it off', async (t) => {
    t.equal(createUnknownCodeBudget(stack.redis, keys, 0), null)
  })

  t.test('counts distinct codes, refuses a request that would pass the budget whole, and marks the first refusal once', async (t) => {
    const spend = createUnknownCodeBudget(stack.redis, keys, 5)!
    t.same(await spend('198.51.100.1', []), { ok: true }, 'nothing unknown costs nothing')
    t.same(await spend('198.51.100.1', ['AAAA', 'BBBB', 'CCCC']), { ok: true })
    t.same(await spend('198.51.100.1', ['AAAA', 'BBBB', 'CCCC']), { ok: true }, 'codes already counted are free')
    const refused = await spend('198.51.100.1', ['DDDD', 'EEEE', 'FFFF'])
    t.match(refused, { ok: false, budget: 5, windowSeconds: 3600, firstRefusal: true })
    if (!refused.ok) t.ok(refused.retryAfterSeconds > 3590 && refused.retryAfterSeconds <= 3600)
    t.same((await stack.redis.smembers(keys.unknownCodes('198.51.100.1'))).sort(), ['AAAA', 'BBBB', 'CCCC'], 'a refused request records nothing')
    t.same(await spend('198.51.100.1', ['DDDD', 'EEEE']), { ok: true }, 'up to the budget exactly')
    t.match(await spend('198.51.100.1', ['FFFF']), { ok: false, firstRefusal: false }, 'the client was already counted in this window')
    t.same(await spend('198.51.100.2', ['FFFF']), { ok: true }, 'another client has its own budget')
    const ttl = await stack.redis.pttl(keys.unknownCodes('198.51.100.1'))
    t.ok(ttl > 3_500_000 && ttl <= 3_600_000, 'the window is an hour from the first unknown code')
  })

  t.test('a request with more unknown codes than the whole budget is refused for a full window', async (t) => {
    const spend = createUnknownCodeBudget(stack.redis, keys, 2)!
    t.match(await spend('2001:db8:1:2::/64', ['AAAA', 'BBBB', 'CCCC']), { ok: false, retryAfterSeconds: 3600, firstRefusal: true })
  })

  t.test('the window moves on', async (t) => {
    const spend = createUnknownCodeBudget(stack.redis, keys, 1, 1)!
    t.same(await spend('203.0.113.1', ['AAAA']), { ok: true })
    t.match(await spend('203.0.113.1', ['BBBB']), { ok: false, retryAfterSeconds: 1 })
    await new Promise((r) => setTimeout(r, 1100))
    t.same(await spend('203.0.113.1', ['BBBB']), { ok: true })
  })
})
