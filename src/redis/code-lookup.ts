/**
 * The read path of callbacks and rpc (and of streams): the near cache first, then, for the codes it does not hold,
 * plain commands sent together whatever the number of codes:
 *
 * - HMGET `{p}:codes` CODE...            the cached code records (codes/model/code-record.ts)
 * - HMGET `{p}:presence` CODE...         the presences, keyed by code (presence/model/presence-entry.ts)
 *
 * Shard liveness comes from the marks watcher (shard-marks.ts), judged when the view is made, never from the cache.
 * Without a near cache (or while the feed is not live) every code is read from Redis.
 *
 * Measured for 50 codes with 50 requests in flight (the A/B is in the issue notes): a Lua script doing the same work
 * cost about 93 µs of Node and 103 µs of Redis time per request; these commands cost about 110 µs of Node and 16 µs
 * of Redis. Redis is the one part every front shares, so its time is what bounds a deployment.
 */
import type { Redis } from 'ioredis'
import type { CodeView } from '../presence/model/blocks.js'
import { decodeCachedCode } from '../codes/model/code-record.js'
import { nearView, stampHolds, type AnswerStamp, type NearCache, type NearEntry } from '../presence/model/near-cache.js'
import { decodePresence } from '../presence/model/presence-entry.js'
import type { RedisKeys } from './keys.js'
import type { ShardMarks } from './shard-marks.js'

/** Looks up many codes at once and returns what each block shows, in request order. */
export type CodeLookup = (codes: readonly string[]) => Promise<CodeView[]>

/** Options of the lookup. */
export interface CodeLookupOptions {
  /** The near cache; absent reads everything from Redis. */
  near?: NearCache
  now?: () => number
  /** Called once per lookup with the codes answered from the near cache and those read from Redis. */
  onNearCache?(hits: number, misses: number): void
}

/** Creates the lookup over a Redis client and the shard marks watcher. */
export function createCodeLookup(
  redis: Redis,
  keys: RedisKeys,
  marks: Pick<ShardMarks, 'isLive'> & Partial<Pick<ShardMarks, 'version' | 'stableUntil' | 'current' | 'refresh'>>,
  opts: CodeLookupOptions = {},
): CodeLookup {
  const now = opts.now ?? Date.now
  const near = opts.near
  // The views last answered for a codes array answered wholly from the near cache, under their stamp (the view
  // contract, presence/model/near-cache.ts): a caller asking again with the same array (the blocks routes remember one
  // per path) skips the per-code cache reads. Those skipped reads do not refresh the entries' recency in the LRU order.
  const answered = new WeakMap<readonly string[], { views: readonly CodeView[]; stamp: AnswerStamp }>()
  const read = async (codes: readonly string[]): Promise<NearEntry[]> => {
    const [records, presences] = await Promise.all([redis.hmget(keys.codes, ...codes), redis.hmget(keys.presence, ...codes)])
    const entries: NearEntry[] = new Array(codes.length)
    for (let i = 0; i < codes.length; i++) {
      const record = records[i]
      const presence = presences[i]
      entries[i] = {
        record: record == null ? undefined : decodeCachedCode(record),
        presence: presence == null ? undefined : decodePresence(presence),
      }
    }
    return entries
  }

  // Marks not read for a while (the connection was lost) may have lapsed here while the gateway renewed them: read
  // them first; when that fails too, liveness is unknown and the lookup fails (the front answers 503, never a guess).
  const readMarks = async (): Promise<void> => {
    await marks.refresh?.()
    if (marks.current?.(now()) === false) throw new Error('the shard marks could not be read: shard liveness is unknown')
  }

  return async (codes) => {
    if (marks.current?.(now()) === false) await readMarks()
    const views: CodeView[] = new Array(codes.length)
    if (near === undefined || !near.live) {
      opts.onNearCache?.(0, codes.length)
      const entries = await read(codes)
      const at = now()
      const isLive = (shard: number) => marks.isLive(shard, at)
      for (let i = 0; i < codes.length; i++) views[i] = nearView(entries[i]!, isLive)
      return views
    }
    let at = now()
    const known = answered.get(codes)
    if (known !== undefined && stampHolds(known.stamp, near.version, marks.version, at)) {
      opts.onNearCache?.(codes.length, 0)
      return known.views.slice()
    }
    let isLive = (shard: number) => marks.isLive(shard, at)
    const missing: number[] = []
    for (let i = 0; i < codes.length; i++) {
      const entry = near.get(codes[i]!)
      if (entry === undefined) missing.push(i)
      else views[i] = nearView(entry, isLive)
    }
    opts.onNearCache?.(codes.length - missing.length, missing.length)
    if (missing.length === 0) {
      if (marks.version !== undefined && marks.stableUntil !== undefined) {
        answered.set(codes, { views: views.slice(), stamp: { version: near.version, marks: marks.version, from: at, until: marks.stableUntil(at) } })
      }
      return views
    }
    // The ticket is taken before the read is sent: a write the read may have missed is announced after it.
    const ticket = near.ticket()
    const wanted = missing.map((i) => codes[i]!)
    const entries = await read(wanted)
    at = now()
    isLive = (shard: number) => marks.isLive(shard, at)
    for (let j = 0; j < missing.length; j++) {
      const entry = entries[j]!
      near.put(wanted[j]!, entry, ticket)
      views[missing[j]!] = nearView(entry, isLive)
    }
    return views
  }
}
