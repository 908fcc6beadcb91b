/**
 * Front cluster aggregation with prom-client's AggregatorRegistry: the primary asks every node:cluster worker for
 * its registry over IPC at each scrape and sums them, and adds its own few metrics (worker restarts). Each worker must
 * construct an AggregatorRegistry too, or it never answers and the primary's scrape times out after 5 s.
 */
import { AggregatorRegistry, Registry } from 'prom-client'
import { Metric } from './metric-names.js'
import type { MetricsSource } from './metrics-server.js'
import { counterOf } from './registry.js'

/** In a cluster worker: answers the primary's metric requests with `registry`. Call before the worker starts serving. */
export function shareWithPrimary(registry: Registry): void {
  AggregatorRegistry.setRegistries([registry])
  new AggregatorRegistry()
}

/** The cluster primary's own metrics. */
export interface PrimaryMetrics {
  /** Only the primary's metrics: no default Node metrics, which the workers' aggregation already carries. */
  registry: Registry
  /** A dead worker is being restarted. */
  workerRestarted(): void
}

/** In the cluster primary: its own registry, with `presence_link_front_worker_restarts_total` at 0. */
export function createPrimaryMetrics(): PrimaryMetrics {
  const registry = new Registry()
  const restarts = counterOf(registry, Metric.frontWorkerRestarts)
  return { registry, workerRestarted: () => restarts.inc() }
}

/** In the cluster primary: a source whose text is every live worker's metrics, aggregated, then `primary`'s own. */
export function clusterMetricsSource(primary?: Registry): MetricsSource {
  const aggregator = new AggregatorRegistry()
  return {
    contentType: aggregator.contentType,
    metrics: async () => {
      const [workers, own] = await Promise.all([aggregator.clusterMetrics(), primary?.metrics() ?? ''])
      return own === '' ? workers : `${workers.replace(/\n*$/, '\n')}${own}`
    },
  }
}
