/**
 * The worker's log pruner: every check period (LOG_PRUNE_INTERVAL_SECONDS, at most a minute) it asks whether a prune
 * is due and nobody else runs one (log-prune-turn.ts), and if so prunes `log_entries` (log-prune.ts) while it holds
 * the turn. One log line per prune; metrics of what went, what was kept, the last success and the failures.
 * LOG_RETENTION_DAYS=0 turns it off.
 */
import type { Logger } from '../lib/logger.js'
import type { RetentionRows } from '../mysql/log-entry-retention.js'
import type { LogPruneTurn } from '../redis/log-prune-turn.js'
import { pruneLogEntries } from './log-prune.js'
import type { PruneTally } from './model/prune-plan.js'

/** The pruner's metric hooks (src/metrics/retention-metrics.ts). */
export interface PrunerMetrics {
  /** Entries one DELETE removed. */
  pruned(count: number): void
  /** What the last prune kept. */
  kept(referenced: number, pending: number): void
  /** A prune completed at `at`. */
  succeeded(at: Date): void
  /** A prune failed. */
  failed(): void
}

/** The settings the pruner reads (LOG_RETENTION_DAYS and LOG_PRUNE_*, from the Config). */
export interface PrunerSettings {
  logRetentionDays: number
  logPruneBatchSize: number
  logPrunePauseMs: number
  logPruneIntervalSeconds: number
}

/** What the pruner works on. */
export interface LogPrunerDeps {
  rows: RetentionRows
  turn: LogPruneTurn
  config: PrunerSettings
  log: Logger
  metrics?: PrunerMetrics
}

/** A running pruner. */
export interface LogPruner {
  /** Stops checking; a prune under way stops before its next batch. */
  close(): Promise<void>
}

/** Longest wait between two checks: a worker restarted often still prunes, and a lapsed turn is taken soon. */
const MAX_CHECK_MS = 60_000

function fields(t: PruneTally, ms: number) {
  return {
    deleted: t.deleted,
    batches: t.batches,
    keptInfraction: t.keptReferenced,
    keptPending: t.keptPending,
    cutoff: t.cutoff.toISOString(),
    oldest: t.oldest?.toISOString() ?? null,
    newest: t.newest?.toISOString() ?? null,
    ms,
  }
}

/** Starts the pruner (nothing when LOG_RETENTION_DAYS is 0). */
export function startLogPruner(deps: LogPrunerDeps): LogPruner {
  const { rows, turn, config, log, metrics } = deps
  if (config.logRetentionDays === 0) {
    log.info({}, 'log pruning off (LOG_RETENTION_DAYS=0): log entries are kept forever')
    return { close: async () => undefined }
  }
  const intervalMs = config.logPruneIntervalSeconds * 1000
  const checkMs = Math.min(intervalMs, MAX_CHECK_MS)
  let stopping = false
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> = Promise.resolve()

  const prune = async () => {
    try {
      if (!(await turn.take())) return
      const started = Date.now()
      const tally = await pruneLogEntries(rows, {
        days: config.logRetentionDays,
        batchSize: config.logPruneBatchSize,
        pauseMs: config.logPrunePauseMs,
        dryRun: false,
        shouldStop: () => stopping || !turn.held,
        onBatch: (count) => metrics?.pruned(count),
      })
      metrics?.kept(tally.keptReferenced, tally.keptPending)
      if (!tally.complete) {
        await turn.release()
        log.warn(fields(tally, Date.now() - started), stopping ? 'log prune stopped by shutdown' : 'log prune stopped: the turn was lost')
        return
      }
      const at = new Date()
      await turn.finish(intervalMs, at)
      metrics?.succeeded(at)
      log.info(fields(tally, Date.now() - started), 'log entries pruned')
    } catch (err) {
      metrics?.failed()
      log.warn({ err: err instanceof Error ? err.message : String(err) }, 'log prune failed')
      await turn.release().catch(() => undefined)
    }
  }

  const schedule = () => {
    if (stopping) return
    timer = setTimeout(() => {
      running = prune().finally(schedule)
    }, checkMs)
  }
  schedule()
  log.info({ days: config.logRetentionDays, intervalSeconds: config.logPruneIntervalSeconds, batchSize: config.logPruneBatchSize }, 'log pruner started')
  return {
    async close() {
      stopping = true
      if (timer !== undefined) clearTimeout(timer)
      await running
    },
  }
}
