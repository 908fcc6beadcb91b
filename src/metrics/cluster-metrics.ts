/**
 * Front cluster aggregation: at each scrape the primary asks every node:cluster worker that is serving for its
 * registry over IPC, sums them with prom-client's `AggregatorRegistry.aggregate`, and adds its own few metrics
 * (worker restarts). A worker that does not answer within WORKER_ANSWER_MS (starting, or stuck) is left out of that
 * scrape: the endpoint keeps answering while a worker restarts, which is when its restart counter matters most.
 * (prom-client's own `clusterMetrics()` asks every forked worker and fails the whole scrape after 5 s when one,
 * still starting, does not answer.)
 */
import cluster, { type Worker } from 'node:cluster'
import { AggregatorRegistry, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client'
import { Metric } from './metric-names.js'
import type { MetricsSource } from './metrics-server.js'
import { counterOf } from './registry.js'

const METRICS_REQUEST = 'presence-link:metrics-request'
const METRICS_RESPONSE = 'presence-link:metrics-response'

/** How long the primary waits for one worker's registry before it scrapes without it. */
export const WORKER_ANSWER_MS = 2000

type WorkerMetrics = MetricObjectWithValues<MetricValue<string>>[]

/** In a cluster worker: answers the primary's metric requests with `registry`. Call before the worker starts serving. */
export function shareWithPrimary(registry: Registry): void {
  process.on('message', (message: unknown) => {
    const request = message as { type?: unknown; id?: unknown } | null
    if (request?.type !== METRICS_REQUEST) return
    registry.getMetricsAsJSON().then(
      (metrics) => process.send?.({ type: METRICS_RESPONSE, id: request.id, metrics }),
      () => process.send?.({ type: METRICS_RESPONSE, id: request.id, metrics: null }),
    )
  })
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

/**
 * In the cluster primary: a source whose text is the metrics of every worker `serving()` lists that answers in time,
 * aggregated, then `primary`'s own.
 */
export function clusterMetricsSource(serving: () => readonly Worker[], primary?: Registry): MetricsSource {
  let nextId = 0
  const pending = new Map<number, (metrics: WorkerMetrics | null) => void>()
  cluster.on('message', (_worker, message: unknown) => {
    const response = message as { type?: unknown; id?: unknown; metrics?: WorkerMetrics | null } | null
    if (response?.type !== METRICS_RESPONSE || typeof response.id !== 'number') return
    pending.get(response.id)?.(response.metrics ?? null)
  })
  const ask = (worker: Worker): Promise<WorkerMetrics | null> =>
    new Promise((resolve) => {
      const id = nextId++
      const done = (metrics: WorkerMetrics | null) => {
        clearTimeout(timer)
        pending.delete(id)
        resolve(metrics)
      }
      const timer = setTimeout(() => done(null), WORKER_ANSWER_MS)
      pending.set(id, done)
      try {
        worker.send({ type: METRICS_REQUEST, id })
      } catch {
        done(null)
      }
    })
  return {
    contentType: Registry.PROMETHEUS_CONTENT_TYPE,
    metrics: async () => {
      const answers = await Promise.all(serving().map(ask))
      const present = answers.filter((a): a is WorkerMetrics => a !== null)
      const workers = present.length === 0 ? '' : await AggregatorRegistry.aggregate(present).metrics()
      const own = (await primary?.metrics()) ?? ''
      return own === '' ? workers : `${workers === '' ? '' : workers.replace(/\n*$/, '\n')}${own}`
    },
  }
}
