/**
 * The log pruner's metrics (src/retention/log-pruner.ts calls them): entries deleted, old entries kept by reason,
 * the time of the last complete prune, and failed prunes.
 */
import type { Registry } from 'prom-client'
import type { PrunerMetrics } from '../retention/log-pruner.js'
import { Metric, PRUNE_KEPT_REASONS } from './metric-names.js'
import { counterOf, gaugeOf } from './registry.js'

/** Registers the pruner's metrics on `registry` and returns the hooks that feed them. */
export function createRetentionMetrics(registry: Registry): PrunerMetrics {
  const pruned = counterOf(registry, Metric.logPruned)
  const kept = gaugeOf(registry, Metric.logPruneKept)
  const lastSuccess = gaugeOf(registry, Metric.logPruneLastSuccess)
  const failures = counterOf(registry, Metric.logPruneFailures)
  // Series that exist from the start, so rate() and the alert see their first increment.
  pruned.inc(0)
  failures.inc(0)
  lastSuccess.set(0)
  for (const reason of PRUNE_KEPT_REASONS) kept.set({ reason }, 0)
  return {
    pruned: (count) => {
      if (count > 0) pruned.inc(count)
    },
    kept: (referenced, pending) => {
      kept.set({ reason: 'infraction' }, referenced)
      kept.set({ reason: 'pending' }, pending)
    },
    succeeded: (at) => lastSuccess.set(at.getTime() / 1000),
    failed: () => failures.inc(),
  }
}
