/** The pruners' turn on real Redis: one holder at a time, none while a complete prune's mark lives, the next after it. */
import t from 'tap'
import { createLogPruneTurn } from '../../src/redis/log-prune-turn.js'
import { startStack } from '../helpers/stack.js'

t.test('one worker prunes at a time, and none again until the interval has passed', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const a = createLogPruneTurn(stack.redis, stack.ctx.keys, 'host-a:1:aaaa')
  const b = createLogPruneTurn(stack.redis, stack.ctx.keys, 'host-b:2:bbbb')
  t.teardown(async () => {
    await a.release()
    await b.release()
  })
  t.equal(await a.take(), true, 'the first to ask takes the turn')
  t.equal(await b.take(), false, 'the second waits while the first prunes')
  t.equal(a.held, true)
  await a.release()
  t.equal(await b.take(), true, 'a prune that did not complete leaves the turn to the next')
  await b.finish(600, new Date('2026-11-26T12:00:00.000Z'))
  t.equal(b.held, false)
  t.equal(await stack.redis.get(stack.ctx.keys.retentionDone), '2026-11-26T12:00:00.000Z')
  t.equal(await a.take(), false, 'no prune while the last one is within its interval')
  t.equal(await b.take(), false, 'not even by the one that ran it')
  await new Promise((r) => setTimeout(r, 700))
  t.equal(await a.take(), true, 'after the interval the next prune is due')
})
