/** Queue consumer metrics: job duration and results per queue, and queue depth gauges read from BullMQ at scrape time. */
import type { Registry } from 'prom-client'
import { JOB_RESULTS, labelValue, Metric, QUEUE_STATES, QUEUES, type QueueState } from './metric-names.js'
import { counterOf, gaugeOf, histogramOf } from './registry.js'

/** Job metrics of one process. */
export interface ConsumerMetrics {
  /** Wraps a processor so each attempt's duration and result are recorded under `queue`. */
  instrument<A extends unknown[], R>(queue: string, processor: (...args: A) => Promise<R>): (...args: A) => Promise<R>
}

/** Registers the job duration histogram and the job results counter on `registry`. */
export function createConsumerMetrics(registry: Registry, queues: readonly string[] = QUEUES): ConsumerMetrics {
  const duration = histogramOf(registry, Metric.jobDuration)
  const jobs = counterOf(registry, Metric.jobs)
  for (const queue of queues) for (const result of JOB_RESULTS) jobs.inc({ queue: labelValue(QUEUES, queue), result }, 0)
  return {
    instrument(queue, processor) {
      const label = labelValue(QUEUES, queue)
      return async (...args) => {
        const started = process.hrtime.bigint()
        let result: (typeof JOB_RESULTS)[number] = 'failed'
        try {
          const value = await processor(...args)
          result = 'completed'
          return value
        } finally {
          duration.observe({ queue: label }, Number(process.hrtime.bigint() - started) / 1e9)
          jobs.inc({ queue: label, result })
        }
      }
    },
  }
}

/** The BullMQ job states the depth gauge reads. */
export type CountedJobState = 'waiting' | 'prioritized' | 'active' | 'delayed' | 'failed'

/** Reads a queue's job counts (BullMQ `Queue.getJobCounts`). */
export type JobCountsReader = (...states: CountedJobState[]) => Promise<Record<string, number>>

/** Registers the queue depth gauge; each scrape reads every queue's counts from Redis. */
export function registerQueueGauges(
  registry: Registry,
  queues: ReadonlyMap<string, JobCountsReader>,
  onError: (err: unknown) => void = () => {},
): void {
  gaugeOf(registry, Metric.queueJobs, async (gauge) => {
    try {
      const all = await Promise.all(
        [...queues].map(async ([queue, read]) => [queue, await read('waiting', 'prioritized', 'active', 'delayed', 'failed')] as const),
      )
      gauge.reset()
      for (const [queue, counts] of all) {
        // Prioritized jobs wait in their own set in BullMQ; to an operator they are waiting all the same.
        const values: Record<QueueState, number> = {
          waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
          active: counts.active ?? 0,
          delayed: counts.delayed ?? 0,
          failed: counts.failed ?? 0,
        }
        for (const state of QUEUE_STATES) gauge.set({ queue: labelValue(QUEUES, queue), state }, values[state])
      }
    } catch (err) {
      // A scrape during a Redis outage reports no queue series rather than failing the whole scrape or showing stale depths.
      gauge.reset()
      onError(err)
    }
  })
}

/** Reads when the oldest unfinished job of a queue was accepted (epoch ms), or null when the queue has none. */
export type OldestJobReader = () => Promise<number | null>

/**
 * Registers the oldest-unstored-event gauge: at each scrape, each queue's oldest accepted job that is not done yet
 * (the age an operator must not see grow during an outage). A scrape that cannot read Redis reports no series.
 */
export function registerOldestUnstoredGauge(
  registry: Registry,
  queues: ReadonlyMap<string, OldestJobReader>,
  now: () => number = Date.now,
  onError: (err: unknown) => void = () => {},
): void {
  gaugeOf(registry, Metric.oldestUnstoredEventAge, async (gauge) => {
    try {
      const all = await Promise.all([...queues].map(async ([queue, read]) => [queue, await read()] as const))
      gauge.reset()
      const at = now()
      for (const [queue, oldest] of all) gauge.set({ queue: labelValue(QUEUES, queue) }, oldest === null ? 0 : Math.max(0, (at - oldest) / 1000))
    } catch (err) {
      gauge.reset()
      onError(err)
    }
  })
}
