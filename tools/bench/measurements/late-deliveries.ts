/**
 * Why a stream delivery was late, from the timelines the stream benchmark records (pure): each late change's window,
 * from the Redis write to its last delivery, laid against the front worker's and the bench process's garbage
 * collections and event-loop stalls, the heartbeat rounds the clients saw, the write's own acknowledgement and the
 * spread between the change's first and last delivery. Times are wall-clock milliseconds (epoch).
 */
import type { GcPause, Stall } from './loop-recorder.js'

/** One presence change as the clients saw it. */
export interface UpdateTiming {
  n: number
  /** When the bench sent the Redis write (epoch ms). */
  sentAt: number
  /** The write's own round trip, ms. */
  writeAckMs: number
  deliveries: number
  /** First and last delivery after `sentAt`, ms. */
  firstMs: number
  lastMs: number
}

/** The clients' view of one heartbeat round: the first and the last heartbeat of it to arrive (epoch ms). */
export interface HeartbeatRound {
  first: number
  last: number
  count: number
}

/** The timelines of one run. */
export interface Timelines {
  frontGc: readonly GcPause[]
  frontStalls: readonly Stall[]
  benchGc: readonly GcPause[]
  benchStalls: readonly Stall[]
  heartbeats: readonly HeartbeatRound[]
}

/** What overlapped one late change's window, in ms, and the largest of them as its cause. */
export interface LateDelivery {
  n: number
  lastMs: number
  firstMs: number
  writeAckMs: number
  frontGcMs: number
  /** The longest front stall overlapping the window (GC or a long piece of work). */
  frontStallMs: number
  benchGcMs: number
  benchStallMs: number
  /** A heartbeat round reached the clients during the window. */
  heartbeat: boolean
  cause: string
}

/** Milliseconds of [a, a+aMs] inside [b, b+bMs]. */
export function overlapMs(a: number, aMs: number, b: number, bMs: number): number {
  return Math.max(0, Math.min(a + aMs, b + bMs) - Math.max(a, b))
}

/** Groups heartbeat arrival times (epoch ms, any order) into rounds: arrivals less than `gapMs` apart belong together. */
export function heartbeatRounds(arrivals: readonly number[], gapMs: number): HeartbeatRound[] {
  const sorted = [...arrivals].sort((a, b) => a - b)
  const rounds: HeartbeatRound[] = []
  for (const t of sorted) {
    const round = rounds.at(-1)
    if (round !== undefined && t - round.last < gapMs) {
      round.last = t
      round.count++
    } else rounds.push({ first: t, last: t, count: 1 })
  }
  return rounds
}

function sumOverlap(pauses: readonly { at: number; ms: number }[], at: number, ms: number): number {
  return pauses.reduce((sum, p) => sum + overlapMs(p.at, p.ms, at, ms), 0)
}

function longestOverlap(stalls: readonly Stall[], at: number, ms: number): number {
  return stalls.reduce((most, s) => Math.max(most, overlapMs(s.at, s.ms, at, ms)), 0)
}

/**
 * The changes whose last delivery came later than `lateMs`, each with what overlapped its window. The cause names the
 * largest contribution: a front garbage collection, other front work (a stall not covered by a collection: a
 * heartbeat round when one ran then), the bench process itself, the Redis write, or the fan-out (the spread between
 * the first and the last delivery).
 */
export function lateDeliveries(updates: readonly UpdateTiming[], t: Timelines, lateMs: number): LateDelivery[] {
  const out: LateDelivery[] = []
  for (const u of updates) {
    if (!(u.lastMs > lateMs)) continue
    const at = u.sentAt
    const ms = u.lastMs
    const frontGcMs = sumOverlap(t.frontGc, at, ms)
    const frontStallMs = longestOverlap(t.frontStalls, at, ms)
    const benchGcMs = sumOverlap(t.benchGc, at, ms)
    const benchStallMs = longestOverlap(t.benchStalls, at, ms)
    const heartbeat = t.heartbeats.some((h) => overlapMs(h.first, h.last - h.first, at, ms) > 0 || (h.first >= at && h.first <= at + ms))
    const frontWork = Math.max(0, frontStallMs - frontGcMs)
    const candidates: Array<[string, number]> = [
      ['front garbage collection', frontGcMs],
      [heartbeat ? 'front busy (heartbeat round)' : 'front busy (not a collection)', frontWork],
      ['bench process', Math.max(benchGcMs, benchStallMs)],
      ['Redis write', u.writeAckMs],
      ['fan-out spread', u.lastMs - u.firstMs],
    ]
    const [cause] = candidates.reduce((best, c) => (c[1] > best[1] ? c : best))
    out.push({ n: u.n, lastMs: u.lastMs, firstMs: u.firstMs, writeAckMs: u.writeAckMs, frontGcMs, frontStallMs, benchGcMs, benchStallMs, heartbeat, cause })
  }
  return out
}
