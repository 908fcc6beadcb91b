/**
 * The front's shard liveness watcher (src/redis/shard-marks.ts) and the marks the gateway writes
 * (scripts/shard-mark.lua): marks live on Redis's clock, so no host's clock offset changes what is live.
 */
import t from 'tap'
import { watchShardMarks } from '../../src/redis/shard-marks.js'
import { startStack, type Stack } from '../helpers/stack.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function redisNow(stack: Stack): Promise<number> {
  const [s, us] = await stack.redis.time()
  return Number(s) * 1000 + Math.floor(Number(us) / 1000)
}

t.test('a lapse, a death and a return are each reported once, whatever this host\'s clock says', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  for (const offset of [3_600_000, -3_600_000, 0]) {
    t.test(`with this host's clock ${offset / 1000} s from Redis's`, async (t) => {
      await stack.redis.del(stack.ctx.keys.presenceShards)
      const now = () => Date.now() + offset
      await stack.presence.markLive(0, 15_000)
      await stack.presence.markLive(1, 300)
      const marks = await watchShardMarks(stack.redis, stack.ctx.keys, { everyMs: 60_000, now })
      t.teardown(() => marks.stop())
      const seen: number[][] = []
      marks.onTransition((s) => seen.push([...s].sort()))
      t.equal(marks.isLive(0, now()), true)
      t.equal(marks.isLive(1, now()), true)
      t.equal(marks.isLive(1, now() + 1000), false, 'a mark counts until, not past, its time')
      t.equal(marks.isLive(7, now()), false, 'an unknown shard is not live')
      const until = marks.stableUntil(now())
      t.ok(until > now() && until <= now() + 300, 'stableUntil is the next lapse, on this host\'s clock')

      await sleep(400)
      await marks.refresh()
      t.same(seen, [[1]], 'shard 1 lapsed')
      t.equal(marks.isLive(1, now()), false)
      await marks.refresh()
      t.same(seen, [[1]], 'no change, no report')

      await stack.presence.markDead(0)
      await marks.refresh()
      t.same(seen, [[1], [0]], 'shard 0 marked dead')

      await stack.presence.markLive(0, 15_000)
      await stack.presence.markLive(1, 15_000)
      await marks.refresh()
      t.same(seen, [[1], [0], [0, 1]], 'both back')
    })
  }
})

t.test('the gateway\'s marks are written on Redis\'s clock; a renewal never revives a lapsed mark', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const before = await redisNow(stack)
  await stack.presence.markLive(4, 15_000)
  const after = await redisNow(stack)
  const mark = Number(await stack.redis.hget(stack.ctx.keys.presenceShards, '4'))
  t.ok(mark >= before + 15_000 && mark <= after + 15_000, `the mark is Redis's TIME plus the lease (${mark - before} ms after the first reading)`)

  t.equal(await stack.presence.renewMark(4, 15_000), true, 'a valid mark is renewed')
  t.ok(Number(await stack.redis.hget(stack.ctx.keys.presenceShards, '4')) >= mark)

  await stack.redis.hset(stack.ctx.keys.presenceShards, '4', String(before - 1))
  t.equal(await stack.presence.renewMark(4, 15_000), false, 'a lapsed mark is not renewed')
  t.equal(await stack.redis.hget(stack.ctx.keys.presenceShards, '4'), String(before - 1), 'and nothing is written')
  t.equal(await stack.presence.renewMark(5, 15_000), false, 'a missing mark is not renewed')
  t.equal(await stack.redis.hexists(stack.ctx.keys.presenceShards, '5'), 0)
})
