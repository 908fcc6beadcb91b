/**
 * Front cluster aggregation with prom-client's AggregatorRegistry: the primary asks every node:cluster worker for
 * its registry over IPC at each scrape and sums them. Each worker must construct an AggregatorRegistry too, or it
 * never answers and the primary's scrape times out after 5 s.
 */
import { AggregatorRegistry, type Registry } from 'prom-client'
import type { MetricsSource } from './metrics-server.js'

/** In a cluster worker: answers the primary's metric requests with `registry`. Call before the worker starts serving. */
export function shareWithPrimary(registry: Registry): void {
  AggregatorRegistry.setRegistries([registry])
  new AggregatorRegistry()
}

/** In the cluster primary: a source whose text is every live worker's metrics, aggregated. */
export function clusterMetricsSource(): MetricsSource {
  const aggregator = new AggregatorRegistry()
  return {
    contentType: aggregator.contentType,
    metrics: () => aggregator.clusterMetrics(),
  }
}
