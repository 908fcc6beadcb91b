/**
 * The change feed (src/redis/change-feed.ts, redis/model/feed-message.ts): every write that changes a block announces its
 * code in the same MULTI, and a follower knows exactly when it may have missed something.
 */
import t from 'tap'
import type { FeedChange } from '../../src/redis/model/feed-message.js'
import { followChangeFeed } from '../../src/redis/change-feed.js'
import { createRedis } from '../../src/redis/connection.js'
import { eventually, startStack } from '../helpers/stack.js'

t.test('code writes, presence writes, sweeps and shard deaths are announced; a dropped connection ends liveness', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const keys = stack.ctx.keys
  const name = `feed-test-${process.pid}-${Date.now()}`
  const subscriber = createRedis(stack.config.redisUrl, 'worker', name)
  const feed = await followChangeFeed(subscriber, keys)
  t.teardown(() => feed.close())
  t.equal(feed.live, true, 'live once the first subscription is confirmed')
  const seen: FeedChange[] = []
  feed.onChange((c) => seen.push(c))
  const liveness: boolean[] = []
  feed.onLive((l) => liveness.push(l))
  const next = async (what: string): Promise<FeedChange> => eventually(async () => seen.shift(), 5000, what)

  const before = Date.now()
  const { code } = await stack.codes.issue('700000000000000001')
  const issued = await next('the issue')
  t.same(issued.all ? [] : issued.codes, [code.code], 'issuing a code announces it')
  t.ok(issued.sentAt >= before && issued.sentAt <= Date.now(), 'the message carries the write time')

  await stack.presence.set(code.code, { shard: 0, status: 'online', activity: 'Playing,\nChess;\n' })
  t.match(await next('presence set'), { all: false, codes: [code.code] })
  await stack.presence.setMany([
    [code.code, { shard: 0, status: 'idle', activity: '' }],
    ['ZZZ1', { shard: 0, status: 'idle', activity: '' }],
  ])
  t.match(await next('presence setMany'), { all: false, codes: [code.code, 'ZZZ1'] })
  t.equal(await stack.presence.sweepShard(0, (c) => c === code.code), 1)
  t.match(await next('sweep'), { all: false, codes: ['ZZZ1'] })
  await stack.presence.clear(code.code)
  t.match(await next('presence clear'), { all: false, codes: [code.code] })
  await stack.presence.markDead(0)
  t.match(await next('shard dead'), { all: true })
  await stack.codes.act(code.code, 'revoke', { source: 'test' })
  t.match(await next('revoke'), { all: false, codes: [code.code] })
  t.same(seen, [], 'nothing else was announced')

  // Kill the follower's connection (only this one: Redis is shared) from the server side: liveness ends at once, and comes back after re-subscribing.
  const list = String(await stack.redis.call('CLIENT', 'LIST', 'TYPE', 'pubsub'))
  const id = list.split('\n').find((line) => line.includes(`name=presence-link:${name} `))?.match(/^id=(\d+)/)?.[1]
  if (id === undefined) throw new Error('the follower connection is not in CLIENT LIST')
  await stack.redis.call('CLIENT', 'KILL', 'ID', id)
  await eventually(async () => (liveness.includes(false) ? true : undefined), 5000, 'liveness to drop')
  await eventually(async () => (feed.live ? true : undefined), 10_000, 'the feed to be live again')
  t.same(liveness.slice(-2), [false, true], 'dropped, then live again')
  await stack.codes.issue('700000000000000002')
  t.match(await next('an issue after the reconnect'), { all: false })
})
