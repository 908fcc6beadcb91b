/**
 * What the worker's metrics read from the queues at each scrape: every queue's depth by state and, for the queues
 * whose jobs are accepted events (log and audit entries), when the oldest unfinished one was accepted.
 */
import type { Registry } from 'prom-client'
import type { Logger } from '../lib/logger.js'
import { registerOldestUnstoredGauge, registerQueueGauges, type JobCountsReader, type OldestJobReader } from './consumer-metrics.js'
import { QueueName } from '../queue/names.js'
import { oldestUnfinishedJob, type GaugedQueue } from '../queue/queues.js'

/** Queues whose jobs are accepted events (the oldest-unstored-event gauge): log entries and audit entries. */
export const UNSTORED_EVENT_QUEUES: readonly QueueName[] = [QueueName.Log, QueueName.Audit]

/** Registers the queue gauges over one handle per queue; a scrape whose read fails logs a warning and goes on. */
export function registerQueueMetrics(registry: Registry, queues: ReadonlyMap<QueueName, GaugedQueue>, log: Logger): void {
  const readers = new Map<string, JobCountsReader>()
  const oldest = new Map<string, OldestJobReader>()
  for (const [name, handle] of queues) {
    readers.set(name, (...states) => handle.getJobCounts(...states))
    if (UNSTORED_EVENT_QUEUES.includes(name)) oldest.set(name, () => oldestUnfinishedJob(handle))
  }
  registerQueueGauges(registry, readers, (err) => log.warn({ err: (err as Error).message }, 'queue gauges unavailable'))
  registerOldestUnstoredGauge(registry, oldest, Date.now, (err) => log.warn({ err: (err as Error).message }, 'oldest-event gauge unavailable'))
}
