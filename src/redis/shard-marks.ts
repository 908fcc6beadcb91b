/**
 * A front's view of the gateway shards' liveness marks (`{p}:presence:shards`: shard id -> epoch ms, by Redis's
 * clock, until which that shard's presences count), read every `everyMs` by a timer instead of inside requests.
 *
 * A mark lapsing is not a write, so nothing announces it on the change feed: this watcher notices a shard's liveness
 * changing (lapsed, marked dead, or back) and tells its listeners, at most `everyMs` late. `isLive` itself compares
 * against the mark's exact time, so a reader that checks it when serving is never late.
 *
 * Clocks: marks are written on Redis's clock (scripts/shard-mark.lua), and each read also asks Redis for its time
 * (`TIME`, in the same MULTI), so the watcher knows how far this host's clock is from Redis's (measured at the middle
 * of the round trip) and keeps every mark converted to this host's clock. Callers go on passing their own `Date.now()`;
 * an offset of any size between the gateway's, Redis's and this host's clocks changes nothing. What is left is the
 * round trip's uncertainty (half of it, well under a millisecond on a LAN) and a step of this host's clock between two
 * reads (corrected at the next read, within `everyMs`).
 */
import type { Redis } from 'ioredis'
import type { RedisKeys } from './keys.js'
import { execAll } from './multi.js'

/** How often a front reads the marks. */
export const MARKS_REFRESH_MS = 1000

/** The watcher. */
export interface ShardMarks {
  /** True when `shard`'s mark, as last read and converted to this host's clock, is later than `at` (epoch ms, this host's clock). */
  isLive(shard: number, at: number): boolean
  /** Changes each time the marks are read again: while it and the time window of `stableUntil` hold, `isLive` answers the same. */
  readonly version: number
  /** The earliest mark later than `at` (Infinity when none): from `at` until then, `isLive` answers as it does at `at`. */
  stableUntil(at: number): number
  /** Calls `listener` with the shards whose liveness changed since the previous check; returns a stop function. */
  onTransition(listener: (shards: readonly number[]) => void): () => void
  /** Reads the marks now and reports transitions (the timer does this every `everyMs`). */
  refresh(): Promise<void>
  /** Stops the timer. */
  stop(): void
}

/** Options of the watcher. */
export interface ShardMarksOptions {
  everyMs?: number
  now?: () => number
  onError?: (err: Error) => void
}

/** Starts watching; resolves after the first read (or its failure: every shard then reads as not live). */
export async function watchShardMarks(redis: Redis, keys: RedisKeys, opts: ShardMarksOptions = {}): Promise<ShardMarks> {
  const now = opts.now ?? Date.now
  const listeners = new Set<(shards: readonly number[]) => void>()
  let marks = new Map<number, number>()
  let version = 0
  let wasLive = new Set<number>()

  const check = () => {
    const at = now()
    const live = new Set<number>()
    for (const [shard, until] of marks) if (until > at) live.add(shard)
    const changed: number[] = []
    for (const shard of live) if (!wasLive.has(shard)) changed.push(shard)
    for (const shard of wasLive) if (!live.has(shard)) changed.push(shard)
    wasLive = live
    if (changed.length > 0) for (const listener of listeners) listener(changed)
  }
  const refresh = async () => {
    try {
      const sentAt = now()
      const [raw, time] = (await execAll(redis.multi().hgetall(keys.presenceShards).time())) as [Record<string, string>, [string, string]]
      const redisNow = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000)
      // Redis's clock minus ours, taking Redis's reading to be from the middle of the round trip.
      const offset = redisNow - (sentAt + now()) / 2
      const next = new Map<number, number>()
      for (const [shard, until] of Object.entries(raw)) next.set(Number(shard), Number(until) - offset)
      marks = next
      version++
    } catch (err) {
      // Unreadable marks keep their last value: a lapse is still noticed by time, a revival when Redis answers.
      opts.onError?.(err as Error)
    }
    check()
  }

  await refresh()
  const timer = setInterval(() => void refresh(), opts.everyMs ?? MARKS_REFRESH_MS)
  timer.unref()
  return {
    isLive: (shard, at) => (marks.get(shard) ?? 0) > at,
    get version() {
      return version
    },
    stableUntil(at) {
      let until = Number.POSITIVE_INFINITY
      for (const mark of marks.values()) if (mark > at && mark < until) until = mark
      return until
    },
    onTransition(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    refresh,
    stop: () => clearInterval(timer),
  }
}
