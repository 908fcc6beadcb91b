/** Builds prom-client registries and metrics from the definitions in metric-names.ts. */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { buildInfo } from './build-info.js'
import { Metric, type MetricSpec } from './metric-names.js'

/**
 * prom-client's default gauges that carry a counter's `_total` suffix (`promtool check metrics` rejects them). Each
 * is the sum of its per-type gauge of the same name without the suffix (`nodejs_active_handles{type}`, ...), which
 * stays: `sum without (type) (nodejs_active_handles)` is the total.
 */
export const DROPPED_DEFAULT_METRICS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'] as const

/**
 * How often the event loop's lag is sampled, in ms. prom-client's default, 10, wakes every process 100 times a second
 * when it has nothing else to do (about 4 ms of CPU a second each, measured on an idle front and worker); 10 samples a
 * second still give the lag percentiles 150 samples per 15 s scrape, and a stall longer than this is measured whole.
 */
export const EVENT_LOOP_SAMPLE_MS = 100

/**
 * A process's registry with the default Node process metrics (CPU, memory, event loop lag, GC, handles), less
 * {@link DROPPED_DEFAULT_METRICS}, and `presence_link_build_info`.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS })
  for (const name of DROPPED_DEFAULT_METRICS) registry.removeSingleMetric(name)
  const info = buildInfo()
  // `first`: the front's cluster primary sums its workers' metrics by default, and every worker reports this same 1.
  const spec = Metric.buildInfo
  new Gauge({ name: spec.name, help: spec.help, labelNames: spec.labels, registers: [registry], aggregator: 'first' }).set(info, 1)
  return registry
}

/** Registers a counter from its definition. */
export function counterOf<L extends string>(registry: Registry, spec: MetricSpec<L>): Counter<L> {
  return new Counter<L>({ name: spec.name, help: spec.help, labelNames: spec.labels, registers: [registry] })
}

/** Registers a histogram from its definition. */
export function histogramOf<L extends string>(registry: Registry, spec: MetricSpec<L>): Histogram<L> {
  return new Histogram<L>({
    name: spec.name,
    help: spec.help,
    labelNames: spec.labels,
    ...(spec.buckets === undefined ? {} : { buckets: [...spec.buckets] }),
    registers: [registry],
  })
}

/** Registers a gauge from its definition; `collect` runs at every scrape. */
export function gaugeOf<L extends string>(registry: Registry, spec: MetricSpec<L>, collect?: (gauge: Gauge<L>) => Promise<void> | void): Gauge<L> {
  return new Gauge<L>({
    name: spec.name,
    help: spec.help,
    labelNames: spec.labels,
    registers: [registry],
    ...(collect === undefined
      ? {}
      : {
          collect(this: Gauge<L>) {
            return collect(this)
          },
        }),
  })
}
