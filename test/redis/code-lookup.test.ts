/**
 * The read path's lookup (src/redis/code-lookup.ts) against the real Redis: asked again with the same codes array it
 * may answer from what it answered last, but never past a change of the near cache, a new read of the shard marks, or
 * the moment a mark lapses.
 */
import t from 'tap'
import { renderActivityGroups } from '../../src/presence/model/activity.js'
import { renderCallbackBlock } from '../../src/presence/model/blocks.js'
import { createNearCache } from '../../src/presence/model/near-cache.js'
import { createCodeLookup } from '../../src/redis/code-lookup.js'
import { watchShardMarks } from '../../src/redis/shard-marks.js'
import { startStack } from '../helpers/stack.js'
import { unreachableRedis } from '../helpers/unreachable-redis.js'

const GAME = (name: string) => renderActivityGroups([{ type: 0, name }], 'Roblox')

t.test('the same codes array is answered again only while nothing it depends on changed', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const { code } = await stack.codes.issue('400000000000000001')
  const bound = await stack.codes.bind(code.code, { platformUserId: '4001', platformUsername: 'Lookup_A' }, { source: 'test' })
  t.equal(bound.status, 'bound')
  // This host's clock, far from Redis's: the marks watcher converts marks (Redis's clock) to it.
  let clock = 2_000_000
  await stack.presence.markLive(3, 5_000)
  await stack.presence.set(code.code, { shard: 3, status: 'online', activity: GAME('Chess') })
  const marks = await watchShardMarks(stack.redis, stack.ctx.keys, { everyMs: 60_000, now: () => clock })
  t.teardown(() => marks.stop())
  const near = createNearCache(100)
  near.setLive(true)
  let hits = 0
  let misses = 0
  const lookup = createCodeLookup(stack.redis, stack.ctx.keys, marks, {
    near,
    now: () => clock,
    onNearCache(h, m) {
      hits += h
      misses += m
    },
  })
  const codes = [code.code]
  const shown = async () => renderCallbackBlock(code.code, (await lookup(codes))[0]!)
  const playing = (game: string) => `{${code.code};\nLookup_A;\nPlaying,\n${game};\n}\n`
  const idle = `{${code.code};\nLookup_A;\nNo activity detected;\n}\n`

  t.equal(await shown(), playing('Chess'), 'read from Redis')
  t.equal(await shown(), playing('Chess'), 'from the near cache')
  t.equal(await shown(), playing('Chess'), 'answered again')
  t.same({ hits, misses }, { hits: 2, misses: 1 }, 'answers given again still count as near-cache hits')

  // The mark's time in this host's clock is known to within the marks read's round trip (a few ms here).
  clock += 4_900
  t.equal(await shown(), playing('Chess'), 'a mark counts until its time')
  clock += 200
  t.equal(await shown(), idle, 'the mark lapsing hides the presence though the marks were not read again')

  await stack.presence.markLive(3, 60_000)
  await marks.refresh()
  t.equal(await shown(), playing('Chess'), 'a new read of the marks shows it again')

  await stack.presence.set(code.code, { shard: 3, status: 'online', activity: GAME('Go') })
  t.equal(await shown(), playing('Chess'), 'the near cache still holds the old presence until the feed names the code')
  near.invalidate(codes)
  t.equal(await shown(), playing('Go'), 'an invalidation shows the new presence')
  t.equal(await shown(), playing('Go'))

  await stack.presence.markDead(3)
  await marks.refresh()
  t.equal(await shown(), idle, 'a shard marked dead hides the presence')

  const again = await lookup(codes)
  t.not(again, await lookup(codes), 'each call gets its own array, so a caller may change it')
})

t.test('marks not read for a while are read again before they judge a presence; unreadable ones fail the lookup', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const { code } = await stack.codes.issue('400000000000000002')
  t.equal((await stack.codes.bind(code.code, { platformUserId: '4002', platformUsername: 'Lookup_B' }, { source: 'test' })).status, 'bound')
  let clock = 5_000_000
  await stack.presence.markLive(4, 5_000)
  await stack.presence.set(code.code, { shard: 4, status: 'online', activity: GAME('Chess') })
  // The timer never fires in this test: only the lookup's own re-read can bring the marks up to date.
  const marks = await watchShardMarks(stack.redis, stack.ctx.keys, { everyMs: 60_000, currentForMs: 3_000, now: () => clock })
  t.teardown(() => marks.stop())
  const lookup = createCodeLookup(stack.redis, stack.ctx.keys, marks, { now: () => clock })
  const shown = async () => renderCallbackBlock(code.code, (await lookup([code.code]))[0]!)
  const playing = `{${code.code};\nLookup_B;\nPlaying,\nChess;\n}\n`

  t.equal(await shown(), playing)
  // The gateway kept renewing while this front could not read (a partition): the copy held here lapses, Redis's not.
  await stack.presence.renewMark(4, 60_000)
  clock += 5_100
  t.equal(marks.current(clock), false, 'marks last read 5.1 s ago are not current')
  t.equal(await shown(), playing, 'read again first: the shard is live, not "No activity"')
  t.equal(marks.current(clock), true)

  // A front whose marks cannot be read does not guess: the lookup fails (the front answers 503).
  const broken = await unreachableRedis(t)
  const blind = await watchShardMarks(broken, stack.ctx.keys, { everyMs: 60_000, currentForMs: 3_000, now: () => clock })
  t.teardown(() => blind.stop())
  const blindLookup = createCodeLookup(stack.redis, stack.ctx.keys, blind, { now: () => clock })
  await t.rejects(blindLookup([code.code]), /shard marks could not be read/)
})
