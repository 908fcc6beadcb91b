/** The front's shard liveness watcher (src/redis/shard-marks.ts): lapses, deaths and returns are reported. */
import t from 'tap'
import { watchShardMarks } from '../../src/redis/shard-marks.js'
import { startStack } from '../helpers/stack.js'

t.test('a lapse, a death and a return are each reported once; isLive uses the exact mark', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  let clock = 1_000_000
  await stack.presence.heartbeat(0, clock + 15_000)
  await stack.presence.heartbeat(1, clock + 5_000)
  const marks = await watchShardMarks(stack.redis, stack.ctx.keys, { everyMs: 60_000, now: () => clock })
  t.teardown(() => marks.stop())
  const seen: number[][] = []
  marks.onTransition((s) => seen.push([...s].sort()))
  t.equal(marks.isLive(0, clock), true)
  t.equal(marks.isLive(1, clock + 4_999), true)
  t.equal(marks.isLive(1, clock + 5_000), false, 'a mark counts until, not at, its time')
  t.equal(marks.isLive(7, clock), false, 'an unknown shard is not live')

  clock += 6_000
  await marks.refresh()
  t.same(seen, [[1]], 'shard 1 lapsed')
  await marks.refresh()
  t.same(seen, [[1]], 'no change, no report')

  await stack.presence.markDead(0)
  await marks.refresh()
  t.same(seen, [[1], [0]], 'shard 0 marked dead')

  await stack.presence.heartbeat(0, clock + 15_000)
  await stack.presence.heartbeat(1, clock + 15_000)
  await marks.refresh()
  t.same(seen, [[1], [0], [0, 1]], 'both back')
})
