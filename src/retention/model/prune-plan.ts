/**
 * The plan of a log prune, pure: the cutoff from the database's clock and LOG_RETENTION_DAYS, what to do with one
 * window of entries read in id order (delete, keep as an infraction's evidence, keep because its delivery is pending,
 * or stop: the cutoff is reached), the running tally of a prune and its report line for the CLI and the log.
 */
import type { WindowRow } from '../../mysql/model/retention-window.js'

/** Shortest retention accepted (days): as long as BullMQ keeps failed jobs, so a redriven job still finds its dedupe key. */
export const MIN_RETENTION_DAYS = 7

/** Longest retention accepted (days), ten years. */
export const MAX_RETENTION_DAYS = 3650

const DAY_MS = 86_400_000

/** Entries stored before this time are old enough to go (`now` is the database's clock, as `created_at` is). */
export function pruneCutoff(now: Date, days: number): Date {
  return new Date(now.getTime() - days * DAY_MS)
}

/** Why a retention in days is refused, or null when it is 0 (keep forever) or within the bounds. */
export function retentionDaysProblem(days: number): string | null {
  if (days === 0) return null
  if (!Number.isInteger(days) || days < MIN_RETENTION_DAYS || days > MAX_RETENTION_DAYS) {
    return `must be 0 (keep forever) or ${MIN_RETENTION_DAYS}-${MAX_RETENTION_DAYS} days`
  }
  return null
}

/** One entry of a window, as the prune reads it (the storage's shape, src/mysql/model/retention-window.ts). */
export type { WindowRow }

/** What to do with one window. */
export interface WindowPlan {
  /** Ids to delete, in id order, all stored before the cutoff. */
  deleteIds: string[]
  /** Oldest and newest `created_at` among them (null when none). */
  oldest: Date | null
  newest: Date | null
  keptReferenced: number
  keptPending: number
  /** Where the next window starts (the last id read), or null when the prune is done. */
  nextAfter: string | null
}

/**
 * Plans a window read in id order, at most `limit` rows. Ids rise with `created_at`, so the first entry stored at or
 * after the cutoff ends the prune: nothing after it is looked at (an entry a few milliseconds older stored behind it,
 * by a concurrent transaction, goes at the next run).
 */
export function planWindow(rows: readonly WindowRow[], cutoff: Date, limit: number): WindowPlan {
  const plan: WindowPlan = { deleteIds: [], oldest: null, newest: null, keptReferenced: 0, keptPending: 0, nextAfter: null }
  for (const row of rows) {
    if (row.createdAt.getTime() >= cutoff.getTime()) return plan
    if (row.referenced) plan.keptReferenced++
    else if (row.pending) plan.keptPending++
    else {
      plan.deleteIds.push(row.id)
      if (plan.oldest === null || row.createdAt < plan.oldest) plan.oldest = row.createdAt
      if (plan.newest === null || row.createdAt > plan.newest) plan.newest = row.createdAt
    }
  }
  plan.nextAfter = rows.length >= limit ? (rows[rows.length - 1]?.id ?? null) : null
  return plan
}

/** What a prune did (or, dry, would do). */
export interface PruneTally {
  cutoff: Date
  days: number
  dryRun: boolean
  /** Entries deleted (dry: that would be). */
  deleted: number
  oldest: Date | null
  newest: Date | null
  keptReferenced: number
  keptPending: number
  /** DELETE statements run (dry: that would run), each of at most the batch size. */
  batches: number
  /** False when it stopped early (shutdown, lost lease); what is left goes at the next run. */
  complete: boolean
}

/** A tally before the first window. */
export function emptyTally(cutoff: Date, days: number, dryRun: boolean): PruneTally {
  return { cutoff, days, dryRun, deleted: 0, oldest: null, newest: null, keptReferenced: 0, keptPending: 0, batches: 0, complete: false }
}

const earlier = (a: Date | null, b: Date | null) => (a === null ? b : b === null || a <= b ? a : b)
const later = (a: Date | null, b: Date | null) => (a === null ? b : b === null || a >= b ? a : b)

/** Adds a window's plan, `deleted` of its ids actually gone (a row replayed to pending meanwhile stays). */
export function addWindow(tally: PruneTally, plan: WindowPlan, deleted: number): PruneTally {
  const ran = plan.deleteIds.length > 0
  return {
    ...tally,
    deleted: tally.deleted + deleted,
    oldest: earlier(tally.oldest, plan.oldest),
    newest: later(tally.newest, plan.newest),
    keptReferenced: tally.keptReferenced + plan.keptReferenced,
    keptPending: tally.keptPending + plan.keptPending,
    batches: tally.batches + (ran ? 1 : 0),
  }
}

const iso = (d: Date | null) => (d === null ? '-' : d.toISOString())

/** The report of a prune, as `logs prune` prints it; the last line is the result. */
export function describeTally(t: PruneTally): string[] {
  const lines = [
    `cutoff: entries stored before ${t.cutoff.toISOString()} (${t.days} days)`,
    `kept: ${t.keptReferenced} an infraction references, ${t.keptPending} still pending delivery`,
  ]
  const span = t.deleted === 0 ? '' : `, stored ${iso(t.oldest)} to ${iso(t.newest)}`
  const statements = `${t.batches} ${t.batches === 1 ? 'batch' : 'batches'}`
  if (t.dryRun) lines.push(`dry run: would delete ${t.deleted} entries${span} in ${statements}; nothing deleted`)
  else lines.push(`deleted ${t.deleted} entries${span} in ${statements}${t.complete ? '' : ' (stopped early: the rest goes at the next run)'}`)
  return lines
}
