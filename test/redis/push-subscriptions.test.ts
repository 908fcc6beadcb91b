/** Push subscriptions on the real Redis: replaced per server, lapsing by Redis's clock, universes listed while live. */
import t from 'tap'
import { createPushSubscriptions } from '../../src/redis/push-subscriptions.js'
import { startStack } from '../helpers/stack.js'

t.test('push subscriptions', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const subs = createPushSubscriptions(stack.redis, stack.ctx.keys)

  t.test('a subscription is read back until it lapses, then removed, with its universe', async (t) => {
    const expires = await subs.subscribe('abcdefghijkl', 10, 'job-a', ['AB12', 'CD34'], 300)
    await subs.subscribe('abcdefghijkl', 10, 'job-b', ['EF56'], 60_000)
    await subs.subscribe('abcdefghijkl', 11, 'job-c', ['EF56'], 300)
    const read = await subs.read(10)
    t.ok(expires > read.nowMs)
    t.same(read.subscriptions.map((s) => [s.serverId, s.codes]).sort(), [
      ['job-a', ['AB12', 'CD34']],
      ['job-b', ['EF56']],
    ])
    t.same((await subs.universes()).sort(), [10, 11])
    await new Promise((r) => setTimeout(r, 500))
    t.same(
      (await subs.read(10)).subscriptions.map((s) => s.serverId),
      ['job-b'],
      'job-a lapsed',
    )
    t.same(await stack.redis.hkeys(stack.ctx.keys.pushSubscriptions(10)), ['abcdefghijkl|job-b'], 'and was removed')
    t.same(await subs.universes(), [10], 'universe 11 has no live server left')
  })

  t.test('a renewal replaces the codes and the expiry; an empty list ends it at once', async (t) => {
    await subs.subscribe('abcdefghijkl', 20, 'job', ['AB12'], 300)
    await subs.subscribe('abcdefghijkl', 20, 'job', ['CD34'], 60_000)
    await new Promise((r) => setTimeout(r, 500))
    t.same(
      (await subs.read(20)).subscriptions.map((s) => s.codes),
      [['CD34']],
      'renewed, still live',
    )
    t.equal(await subs.subscribe('abcdefghijkl', 20, 'job', [], 60_000), 0)
    t.same((await subs.read(20)).subscriptions, [])
  })

  t.test('the same JobId under two API keys is two subscriptions', async (t) => {
    await subs.subscribe('aaaaaaaaaaaa', 30, 'job', ['AB12'], 60_000)
    await subs.subscribe('bbbbbbbbbbbb', 30, 'job', ['CD34'], 60_000)
    t.equal((await subs.read(30)).subscriptions.length, 2)
  })
})
