/**
 * Why a stream delivery was late, from the timelines the stream benchmark records (pure): each late change's window,
 * from the Redis write to its last delivery, laid against the front worker's and the bench process's garbage
 * collections and event-loop stalls (with the CPU the front used during them), the heartbeats the clients received,
 * the write's own acknowledgement and the spread between the change's first and last delivery. Times are wall-clock
 * milliseconds (epoch).
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
  /** When each heartbeat reached a client (epoch ms, ascending). */
  heartbeats: readonly number[]
}

/** What overlapped one late change's window, in ms, and the largest of them as its cause. */
export interface LateDelivery {
  n: number
  lastMs: number
  firstMs: number
  writeAckMs: number
  frontGcMs: number
  /** Front stalls inside the window while the front used CPU (a collection included), and while it waited for a core. */
  frontBusyMs: number
  frontWaitingMs: number
  benchGcMs: number
  benchStallMs: number
  /** Heartbeats that reached the clients inside the window. */
  heartbeats: number
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

/** The stalls' time inside the window, split by the share of it the process spent on the CPU. */
function stallSplit(stalls: readonly Stall[], at: number, ms: number): { busy: number; waiting: number } {
  let busy = 0
  let waiting = 0
  for (const s of stalls) {
    const inside = overlapMs(s.at, s.ms, at, ms)
    if (inside === 0) continue
    const share = s.ms > 0 ? Math.min(1, s.cpuMs / s.ms) : 0
    busy += inside * share
    waiting += inside * (1 - share)
  }
  return { busy, waiting }
}

function countWithin(sorted: readonly number[], from: number, to: number): number {
  let n = 0
  for (const t of sorted) if (t >= from && t <= to) n++
  return n
}

/**
 * The changes whose last delivery came later than `lateMs`, each with what overlapped its window. The cause names the
 * largest contribution: a front garbage collection; other front work; the front waiting for a core (the machine's
 * other load); the bench process itself; the Redis write; or the fan-out (the spread between the first and the last
 * delivery). When more than a tenth of the `streams` got their heartbeat inside the window, a stall of the front or
 * the bench is put down to that heartbeat burst.
 */
export function lateDeliveries(updates: readonly UpdateTiming[], t: Timelines, lateMs: number, streams: number): LateDelivery[] {
  const out: LateDelivery[] = []
  for (const u of updates) {
    if (!(u.lastMs > lateMs)) continue
    const at = u.sentAt
    const ms = u.lastMs
    const frontGcMs = sumOverlap(t.frontGc, at, ms)
    const front = stallSplit(t.frontStalls, at, ms)
    const benchGcMs = sumOverlap(t.benchGc, at, ms)
    const benchStallMs = t.benchStalls.reduce((most, s) => Math.max(most, overlapMs(s.at, s.ms, at, ms)), 0)
    const heartbeats = countWithin(t.heartbeats, at, at + ms)
    const candidates: Array<[string, number]> = [
      ['front garbage collection', frontGcMs],
      ['front busy (not a collection)', Math.max(0, front.busy - frontGcMs)],
      ['front waiting for a core', front.waiting],
      ['bench process', Math.max(benchGcMs, benchStallMs)],
      ['Redis write', u.writeAckMs],
      ['fan-out spread', u.lastMs - u.firstMs],
    ]
    let [cause] = candidates.reduce((best, c) => (c[1] > best[1] ? c : best))
    // A burst of heartbeats keeps the front writing them and the clients reading them: whichever of the two (or the
    // machine, busy with both) stalled longest, the burst is what they were busy with.
    if (heartbeats > streams / 10 && /^(front busy|front waiting|bench process)/.test(cause)) cause = 'heartbeat burst (front and clients busy with it)'
    out.push({ n: u.n, lastMs: u.lastMs, firstMs: u.firstMs, writeAckMs: u.writeAckMs, frontGcMs, frontBusyMs: front.busy, frontWaitingMs: front.waiting, benchGcMs, benchStallMs, heartbeats, cause })
  }
  return out
}
