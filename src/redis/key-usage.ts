/**
 * Requests per API key, route and status, per minute (`{p}:usage:{minute}`: field `KEYNAME|ROUTE|STATUS`, value a
 * count; kept 25 h), for `presence-link keys usage`. The front counts in memory and adds its counts to Redis once a
 * second in one round trip, so a request costs a map update, not a Redis command. Counts of a front that dies
 * within that second are lost; lost on purpose when Redis restarts empty (they are statistics).
 */
import type { Redis } from 'ioredis'
import type { Logger } from '../lib/logger.js'
import type { RedisKeys } from './keys.js'

/** How long a minute's counts are kept. */
export const USAGE_KEEP_SECONDS = 25 * 3600

/** One key, route and status with its count. */
export interface UsageCount {
  key: string
  route: string
  status: string
  count: number
}

/** The front's side: counts requests and flushes them. */
export interface UsageRecorder {
  record(key: string, route: string, status: number): void
  /** Adds what is counted to Redis now (also run every second, and at shutdown). */
  flush(): Promise<void>
  /** Stops the timer (flush first to keep the last counts). */
  stop(): void
  /** Stops the timer and adds the last counts (at shutdown). */
  close(): Promise<void>
}

/** The minute of an epoch time in ms. */
export function minuteOf(ms: number): number {
  return Math.floor(ms / 60_000)
}

/** Starts a recorder flushing every `everyMs`; a failed flush is logged (debug) and its counts are kept for the next try. */
export function createUsageRecorder(redis: Redis, keys: RedisKeys, opts: { everyMs?: number; now?: () => number; log?: Pick<Logger, 'debug'> } = {}): UsageRecorder {
  const now = opts.now ?? Date.now
  let counts = new Map<string, Map<string, number>>()
  let flushing: Promise<void> | null = null
  const flushNow = async (): Promise<void> => {
    if (counts.size === 0) return
    const batch = counts
    counts = new Map()
    const tx = redis.multi()
    for (const [minute, fields] of batch) {
      const key = keys.usage(Number(minute))
      for (const [field, n] of fields) tx.hincrby(key, field, n)
      tx.expire(key, USAGE_KEEP_SECONDS)
    }
    try {
      const replies = await tx.exec()
      const failed = replies?.find(([err]) => err !== null)
      if (failed !== undefined) throw failed[0]
    } catch (err) {
      // Put the counts back: the next flush adds them with whatever came meanwhile.
      for (const [minute, fields] of batch) for (const [field, n] of fields) add(minute, field, n)
      opts.log?.debug({ err: (err as Error).message }, 'could not record key usage')
    }
  }
  const add = (minute: string, field: string, n: number) => {
    let fields = counts.get(minute)
    if (fields === undefined) counts.set(minute, (fields = new Map()))
    fields.set(field, (fields.get(field) ?? 0) + n)
  }
  const flush = async (): Promise<void> => {
    if (flushing !== null) await flushing
    await flushNow()
  }
  const timer = setInterval(() => {
    flushing ??= flushNow().finally(() => (flushing = null))
  }, opts.everyMs ?? 1000)
  timer.unref()
  return {
    record(key, route, status) {
      add(String(minuteOf(now())), `${key}|${route}|${status}`, 1)
    },
    flush,
    stop() {
      clearInterval(timer)
    },
    async close() {
      clearInterval(timer)
      await flush()
    },
  }
}

/** Sums the counts of the minutes from `fromMinute` to `toMinute` (both included), by key, route and status. */
export async function readUsage(redis: Redis, keys: RedisKeys, fromMinute: number, toMinute: number): Promise<UsageCount[]> {
  const pipeline = redis.pipeline()
  for (let m = fromMinute; m <= toMinute; m++) pipeline.hgetall(keys.usage(m))
  const replies = (await pipeline.exec()) ?? []
  const totals = new Map<string, number>()
  for (const [err, value] of replies) {
    if (err !== null) throw err
    for (const [field, n] of Object.entries(value as Record<string, string>)) totals.set(field, (totals.get(field) ?? 0) + Number(n))
  }
  return [...totals].map(([field, count]) => {
    const [key = '', route = '', status = ''] = field.split('|')
    return { key, route, status, count }
  })
}
