/**
 * The push publisher's metrics (src/push/publisher.ts calls them): messages published by kind, changes coalesced and
 * dropped, failed publishes by reason (429s among them), the lag from a change to Open Cloud's acceptance, and the
 * universes led and codes pending, read at scrape time.
 */
import type { Registry } from 'prom-client'
import type { PushMetrics } from '../push/publisher.js'
import { labelValue, Metric, PUSH_DROP_REASONS, PUSH_FAILURE_REASONS, PUSH_KINDS } from './metric-names.js'
import { counterOf, gaugeOf, histogramOf } from './registry.js'

/** Registers the push metrics on `registry` and returns the hooks that feed them. */
export function createPushMetrics(registry: Registry): PushMetrics {
  const published = counterOf(registry, Metric.pushPublished)
  const coalesced = counterOf(registry, Metric.pushCoalesced)
  const dropped = counterOf(registry, Metric.pushDropped)
  const failures = counterOf(registry, Metric.pushFailures)
  const lag = histogramOf(registry, Metric.pushLag)
  let state: (() => { universes: number; pending: number }) | undefined
  gaugeOf(registry, Metric.pushUniverses, (gauge) => gauge.set(state?.().universes ?? 0))
  gaugeOf(registry, Metric.pushPending, (gauge) => gauge.set(state?.().pending ?? 0))
  // Series that exist from the start, so rate() and the alert see their first increment.
  coalesced.inc(0)
  for (const kind of PUSH_KINDS) published.inc({ kind }, 0)
  for (const reason of PUSH_DROP_REASONS) dropped.inc({ reason }, 0)
  for (const reason of PUSH_FAILURE_REASONS) failures.inc({ reason }, 0)
  return {
    published: (kind) => published.inc({ kind: labelValue(PUSH_KINDS, kind) }),
    coalesced: (count) => {
      if (count > 0) coalesced.inc(count)
    },
    dropped: (reason, count) => {
      if (count > 0) dropped.inc({ reason: labelValue(PUSH_DROP_REASONS, reason) }, count)
    },
    failed: (reason) => failures.inc({ reason: labelValue(PUSH_FAILURE_REASONS, reason) }),
    lag: (seconds) => lag.observe(seconds),
    state: (read) => {
      state = read
    },
  }
}
