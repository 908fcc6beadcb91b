/** The publisher's budgets on the real Redis: per universe and over every universe, shared by every process. */
import t from 'tap'
import { createPushRateGates } from '../../src/redis/push-rate-gates.js'
import { startStack } from '../helpers/stack.js'

t.test('push rate gates', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const a = createPushRateGates(stack.redis, stack.ctx.keys, 5, 'a')
  const b = createPushRateGates(stack.redis, stack.ctx.keys, 5, 'b')

  t.test("a universe's budget of the minute is shared by two processes", async (t) => {
    const outcomes = [await a(1, 3), await b(1, 3), await a(1, 3), await b(1, 3)]
    t.same(
      outcomes.map((o) => o.ok),
      [true, true, true, false],
    )
    t.match(outcomes[3], { ok: false, spent: 'universe' })
    t.ok(!outcomes[3]!.ok && outcomes[3]!.waitMs > 0 && outcomes[3]!.waitMs <= 60_001)
  })

  t.test("the owner's budget covers every universe", async (t) => {
    t.same((await a(2, 100)).ok, true)
    t.same((await b(3, 100)).ok, true)
    t.match(await a(4, 100), { ok: false, spent: 'owner' }, 'five taken: three by universe 1, one each by 2 and 3')
  })

  t.test('no live server: no budget', async (t) => {
    t.match(await a(9, 0), { ok: false, spent: 'universe' })
  })
})
