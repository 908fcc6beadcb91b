/**
 * One prune of `log_entries`, for the worker's pruner and `presence-link logs prune`: walks the table by primary key
 * one window at a time and deletes each window's old entries in one DELETE of at most `batchSize` ids, pausing between
 * statements; entries an infraction references and entries still pending delivery stay. A dry run walks the same way
 * and deletes nothing.
 */
import type { RetentionRows } from '../mysql/log-entry-retention.js'
import { addWindow, emptyTally, planWindow, pruneCutoff, type PruneTally } from './model/prune-plan.js'

/** How one prune runs. */
export interface PruneOptions {
  /** Entries stored more than this many days ago go. */
  days: number
  /** Entries read per window, and so deleted per statement at most. */
  batchSize: number
  /** Pause after each DELETE, so the table's other users get the server in between. */
  pauseMs: number
  dryRun: boolean
  /** Asked before each window: true stops the prune there (shutdown, lease lost); the rest goes at the next run. */
  shouldStop?: () => boolean
  /** Told how many entries each DELETE removed, as it happens (a prune failing later has still removed those). */
  onBatch?: (deleted: number) => void
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Runs one prune and returns its tally. */
export async function pruneLogEntries(rows: RetentionRows, opts: PruneOptions): Promise<PruneTally> {
  const cutoff = pruneCutoff(await rows.now(), opts.days)
  let tally = emptyTally(cutoff, opts.days, opts.dryRun)
  let after: string | null = '0'
  while (after !== null) {
    if (opts.shouldStop?.() === true) return tally
    const plan = planWindow(await rows.window(after, opts.batchSize), cutoff, opts.batchSize)
    const deleted = opts.dryRun ? plan.deleteIds.length : await rows.delete(plan.deleteIds, cutoff)
    if (!opts.dryRun && plan.deleteIds.length > 0) opts.onBatch?.(deleted)
    tally = addWindow(tally, plan, deleted)
    after = plan.nextAfter
    if (!opts.dryRun && plan.deleteIds.length > 0 && after !== null && opts.pauseMs > 0) await pause(opts.pauseMs)
  }
  return { ...tally, complete: true }
}
