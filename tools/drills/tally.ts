/**
 * The fault drills' arithmetic, without I/O: what the clients were told (accepted events, error kinds), what MySQL
 * holds, and from the two the lost and duplicated counts, the delivery order check and the recovery time.
 */

/** Counts of client-visible outcomes by kind (`503`, `reset`, `refused`, `timeout`, ...). */
export type ErrorCounts = Record<string, number>

/** Adds one outcome of `kind` to `counts`. */
export function countError(counts: ErrorCounts, kind: string): void {
  counts[kind] = (counts[kind] ?? 0) + 1
}

/** Names a failed request: the status for an answer, the error's code (`ECONNRESET` → `reset`) for none. */
export function errorKind(status: number | undefined, code: string | undefined): string {
  if (status !== undefined && status > 0) return String(status)
  switch (code) {
    case 'ECONNRESET':
    case 'EPIPE':
    case 'socket hang up':
      return 'reset'
    case 'ECONNREFUSED':
      return 'refused'
    case 'ETIMEDOUT':
    case 'timeout':
      return 'timeout'
    default:
      return (code ?? 'error').toLowerCase()
  }
}

/** Accepted against stored: the drill's verdict on the data. */
export interface StoreTally {
  accepted: number
  /** Accepted events stored at least once. */
  stored: number
  /** Accepted events not stored. */
  lost: number
  /** Accepted events stored more than once (each counted once). */
  duplicated: number
  /** Rows that match no accepted event (a request that timed out client-side but was stored, for example). */
  unacknowledged: number
}

/** Compares the accepted event ids with the stored rows per id (id → number of rows). */
export function tallyStored(accepted: Iterable<string>, storedCounts: ReadonlyMap<string, number>): StoreTally {
  const acceptedSet = new Set(accepted)
  let stored = 0
  let duplicated = 0
  for (const id of acceptedSet) {
    const n = storedCounts.get(id) ?? 0
    if (n >= 1) stored++
    if (n > 1) duplicated++
  }
  let unacknowledged = 0
  for (const id of storedCounts.keys()) if (!acceptedSet.has(id)) unacknowledged++
  return { accepted: acceptedSet.size, stored, lost: acceptedSet.size - stored, duplicated, unacknowledged }
}

/**
 * When MySQL stored the last of the events accepted up to `untilMs` (epoch ms of its newest row), or null when none
 * of them is stored: the backlog the fault left, drained.
 */
export function lastBacklogStored(accepted: ReadonlyMap<string, number>, rows: ReadonlyMap<string, { lastMs: number }>, untilMs: number): number | null {
  let last: number | null = null
  for (const [id, at] of accepted) {
    const row = rows.get(id)
    if (at <= untilMs && row !== undefined) last = Math.max(last ?? 0, row.lastMs)
  }
  return last
}

/** Positions in `sequence` where an entry id is not greater than the one before (out of order or repeated). */
export function orderBreaks(sequence: readonly number[]): number {
  let breaks = 0
  for (let i = 1; i < sequence.length; i++) if (sequence[i]! <= sequence[i - 1]!) breaks++
  return breaks
}

/**
 * Seconds from the end of a fault until the service was whole again: the later of the first accepted request after
 * the end and the last store of an event accepted before the end (times in epoch milliseconds). Null when the service
 * never answered again; 0 when both happened before the end.
 */
export function recoverySeconds(faultEndMs: number, firstOkAfterMs: number | null, lastBacklogStoredMs: number | null): number | null {
  if (firstOkAfterMs === null) return null
  const until = Math.max(firstOkAfterMs, lastBacklogStoredMs ?? faultEndMs)
  return Math.max(0, until - faultEndMs) / 1000
}

/** `503 ×12, reset ×3` with the biggest counts first, or `none`. */
export function formatErrors(counts: ErrorCounts): string {
  const entries = Object.entries(counts).filter(([, n]) => n > 0)
  if (entries.length === 0) return 'none'
  return entries
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([kind, n]) => `${kind} ×${n.toLocaleString('en-US')}`)
    .join(', ')
}

/**
 * The longest stretch between `fromMs` and `toMs` without one of `times` (epoch ms, any order): the edges count, so
 * no time at all in the window gives the whole window.
 */
export function longestGapMs(times: readonly number[], fromMs: number, toMs: number): number {
  const inside = times.filter((t) => t >= fromMs && t <= toMs).sort((a, b) => a - b)
  let previous = fromMs
  let longest = 0
  for (const t of [...inside, toMs]) {
    longest = Math.max(longest, t - previous)
    previous = t
  }
  return longest
}
