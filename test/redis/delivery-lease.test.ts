/** The delivery lease in Redis: one holder, takeover and taking our own lease back (src/redis/delivery-lease.ts). */
import t from 'tap'
import { createDeliveryLease } from '../../src/redis/delivery-lease.js'
import { startStack } from '../helpers/stack.js'

t.test('the delivery lease', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const key = stack.ctx.keys.deliveryLease('server')

  t.test('only one holder at a time; a release lets the next one in', async (t) => {
    const a = createDeliveryLease(stack.redis, key, 'a', 15_000)
    const b = createDeliveryLease(stack.redis, key, 'b', 15_000)
    t.equal(await a.acquire(), true)
    t.equal(await b.acquire(), false)
    t.equal(await a.confirm(), true)
    t.equal(await b.confirm(), false, 'a lease never taken cannot be confirmed')
    await a.release()
    t.equal(a.held, false)
    t.equal(await b.acquire(), true)
    t.equal(await a.acquire(), false)
    await b.release()
  })

  t.test('a holder whose lease was taken over learns it at the next confirm and stops', async (t) => {
    const a = createDeliveryLease(stack.redis, key, 'a', 15_000)
    t.equal(await a.acquire(), true)
    // What happens when a stalled holder's lease expires and another process takes it.
    await stack.redis.set(key, 'c', 'PX', 15_000)
    t.equal(await a.confirm(), false)
    t.equal(a.held, false)
    await a.release()
    t.equal(await stack.redis.get(key), 'c', "releasing never removes another holder's lease")
    await stack.redis.del(key)
  })

  t.test('a lease still carrying our token is taken back at once', async (t) => {
    await stack.redis.set(key, 'a', 'PX', 15_000)
    const a = createDeliveryLease(stack.redis, key, 'a', 15_000)
    t.equal(await a.acquire(), true)
    t.ok(Number(await stack.redis.pttl(key)) > 10_000)
    await a.release()
    t.equal(await stack.redis.exists(key), 0)
  })
})
