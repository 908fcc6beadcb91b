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
  /**
   * True while the marks were last read less than `currentForMs` before `at`. After the connection was lost for a
   * while, the marks held may have lapsed while the gateway kept renewing them: judging presences by them would show
   * "No activity" for live shards. Readers call `refresh()` first when this is false.
   */
  current(at: number): boolean
  /** Reads the marks now and reports transitions (the timer does this every `everyMs`); concurrent calls share one read. */
  refresh(): Promise<void>
  /** Stops the timer. */
  stop(): void
}

/** Options of the watcher. */
export interface ShardMarksOptions {
  everyMs?: number
  /** How long a read keeps the marks current (default: three periods, 3 s; past it, liveness is unknown until a read works). */
  currentForMs?: number
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
  let readAt = Number.NEGATIVE_INFINITY
  let reading: Promise<void> | null = null
  const everyMs = opts.everyMs ?? MARKS_REFRESH_MS
  const currentForMs = opts.currentForMs ?? 3 * everyMs

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
  const read = async () => {
    let timer: NodeJS.Timeout | undefined
    try {
      const sentAt = now()
      const answer = execAll(redis.multi().hgetall(keys.presenceShards).time())
      answer.catch(() => undefined)
      // A read gets one period to answer: on a silent connection it would wait until the path heals (a late answer,
      // from a long round trip, would measure the clock offset badly anyway), and readers waiting on it must not.
      // The refusal waits for the I/O phase (setImmediate): when our own event loop was what held things up, an
      // answer that arrived meanwhile is read first and wins the race.
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => setImmediate(() => reject(new Error(`no answer to the marks read in ${everyMs} ms`))), everyMs)
        timer.unref()
      })
      const [raw, time] = (await Promise.race([answer, deadline])) as [Record<string, string>, [string, string]]
      const redisNow = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000)
      // Redis's clock minus ours, taking Redis's reading to be from the middle of the round trip.
      const offset = redisNow - (sentAt + now()) / 2
      const next = new Map<number, number>()
      for (const [shard, until] of Object.entries(raw)) next.set(Number(shard), Number(until) - offset)
      marks = next
      readAt = sentAt
      version++
    } catch (err) {
      // Unreadable marks keep their last value: a lapse is still noticed by time, a revival when Redis answers.
      opts.onError?.(err as Error)
    } finally {
      clearTimeout(timer)
    }
    check()
  }
  const refresh = () => {
    reading ??= read().finally(() => {
      reading = null
    })
    return reading
  }

  await refresh()
  const timer = setInterval(() => void refresh(), everyMs)
  timer.unref()
  // A connection that is back reads the marks at once instead of at the next tick.
  const onReady = () => void refresh()
  redis.on('ready', onReady)
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
    current: (at) => at - readAt < currentForMs,
    refresh,
    stop: () => {
      clearInterval(timer)
      redis.off('ready', onReady)
    },
  }
}
