/** Builds prom-client registries and metrics from the definitions in metric-names.ts. */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { MetricSpec } from './metric-names.js'

/** A process's registry with the default Node process metrics (CPU, memory, event loop lag, GC, handles). */
export function createMetricsRegistry(): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
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
