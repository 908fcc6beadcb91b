/**
 * `presence-link logs prune [--dry-run] [--days N]`: deletes the log entries stored more than N days ago
 * (LOG_RETENTION_DAYS by default) in bounded batches, as the worker's pruner does; infractions' evidence and entries
 * still pending delivery stay. A dry run prints what would go and deletes nothing. The last line is the result.
 */
import { createRetentionRows } from '../mysql/log-entry-retention.js'
import { pruneLogEntries } from '../retention/log-prune.js'
import { describeTally } from '../retention/model/prune-plan.js'
import type { ProcessContext } from '../runtime/process-context.js'
import { openDatabase } from '../runtime/storage.js'
import { usage, type CommandOutput } from './command.js'

/** `presence-link logs prune`. */
export async function pruneLogsCommand(ctx: ProcessContext, opts: { dryRun: boolean; days: number | undefined }): Promise<CommandOutput> {
  const days = opts.days ?? ctx.config.logRetentionDays
  if (days === 0) return usage('LOG_RETENTION_DAYS is 0 (log entries are kept forever): pass --days N to prune anyway')
  const db = await openDatabase(ctx, 1)
  const tally = await pruneLogEntries(createRetentionRows(db), {
    days,
    batchSize: ctx.config.logPruneBatchSize,
    pauseMs: ctx.config.logPrunePauseMs,
    dryRun: opts.dryRun,
  })
  return { lines: describeTally(tally), exitCode: 0 }
}
