/** BullMQ queue handles (producers) and the job defaults: retries chosen by the kind of failure, bounded history. */
import { Queue, QueueEvents, type DefaultJobOptions } from 'bullmq'
import type { Redis } from 'ioredis'
import type { LogJob } from './model/jobs.js'
import type { LogBatch } from './model/log-batch.js'
import { JobName, QueueName } from './names.js'
import { BACKOFF_BY_FAILURE_KIND, UNLIMITED_ATTEMPTS } from './retries.js'

/**
 * Retries without limit, the delay chosen by the worker from the kind of failure (src/queue/retries.ts): only a
 * permanent failure, or an unknown one repeated RetryPolicy.unknownAttempts times, ends in failed. Completed jobs are
 * kept an hour, failed ones a week, for inspection and `presence-link jobs redrive`.
 */
export const DEFAULT_JOB_OPTIONS: DefaultJobOptions = {
  attempts: UNLIMITED_ATTEMPTS,
  backoff: { type: BACKOFF_BY_FAILURE_KIND },
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
}

/** Creates a producer handle for one queue. */
export function createQueue(name: QueueName, connection: Redis, prefix: string): Queue {
  return new Queue(name, { connection, prefix, defaultJobOptions: DEFAULT_JOB_OPTIONS })
}

/**
 * Closes BullMQ handles at shutdown; while Redis is down (`redisUp` false) it leaves them instead: they hold nothing
 * to flush then, and BullMQ's close waits for the connection to be ready again, which would run out the shutdown
 * deadline. The process exits right after, ending their connections.
 */
export async function closeQueueHandles(handles: ReadonlyArray<{ close(): Promise<void> }>, redisUp: () => boolean): Promise<void> {
  if (!redisUp()) return
  await Promise.all(handles.map((h) => h.close()))
}

/** Creates the event stream listener a producer needs to wait for results. */
export function createQueueEvents(name: QueueName, connection: Redis, prefix: string): QueueEvents {
  return new QueueEvents(name, { connection, prefix })
}

/**
 * Enqueues one log event under its event id, the key of its stored entry (`job:{queue}:{id}`), so an event sent
 * again under the same id is stored once.
 */
export type EnqueueLog = (job: LogJob, jobId: string) => Promise<void>

/**
 * Begins a confirmation before a write (src/redis/replica-wait.ts, on the queue's own connection); the function it
 * returns, awaited after the write, waits until the write is on enough replicas, and throws when it is not or when the
 * connection was re-made in between. Resolves at once when REDIS_WRITE_REPLICAS is 0.
 */
export type ConfirmWrite = () => () => Promise<void>

/**
 * Creates the producer of single log jobs named `jobName` on `queue` (the gateway's audit entries); with `confirm`,
 * a job counts as handed over only once replicas hold it too.
 */
export function createLogProducer(queue: Queue, jobName: JobName, confirm?: ConfirmWrite): EnqueueLog {
  return async (job, jobId) => {
    const confirmed = confirm?.()
    await queue.add(jobName, job, { jobId })
    await confirmed?.()
  }
}

/**
 * Completed `log-batch` jobs kept for inspection: a batch holds up to FRONT_BATCH_MAX_EVENTS events, so keeping them an
 * hour like single jobs would keep every event of the last hour in Redis memory (their ids are random: no retry finds
 * them there anyway; the MySQL dedupe key is what stores a retry once).
 */
export const COMPLETED_BATCHES_KEPT = 100

/**
 * Adds a `log-batch` job to `queue` (the front's batches, src/queue/log-batcher.ts); resolves once Redis holds it, and
 * with `confirm` once REDIS_WRITE_REPLICAS replicas hold it too (else it throws and every event of the batch is 503).
 */
export function createBatchAdder(queue: Queue, confirm?: ConfirmWrite): (batch: LogBatch, batchId: string) => Promise<void> {
  return async (batch, batchId) => {
    const confirmed = confirm?.()
    await queue.add(JobName.LogBatch, batch, { jobId: batchId, removeOnComplete: { count: COMPLETED_BATCHES_KEPT } })
    await confirmed?.()
  }
}

/**
 * Re-queues one event of a batch as a single job of its queue (`log` on the log queue, `audit` on the audit queue)
 * under its event id: a repeated id is a no-op, so a batch run again re-queues nothing twice.
 */
export function createEventRequeue(queues: ReadonlyMap<string, Queue>): (queueName: string, id: string, event: unknown) => Promise<void> {
  return async (queueName, id, event) => {
    const queue = queues.get(queueName)
    if (queue === undefined) throw new Error(`no producer for queue ${queueName}`)
    await queue.add(queueName === QueueName.Audit ? JobName.Audit : JobName.Log, event, { jobId: id })
  }
}

/** What the queue gauges read of a queue: its counts by state and its oldest jobs. */
export type GaugedQueue = Pick<Queue, 'getJobCounts' | 'getJobs'>

/**
 * When the oldest job of `queue` that is waiting, delayed, active or failed was accepted (epoch ms); null when there
 * is none. Peeks the head of each state (one range read each, and one hash read per job found), never a scan; a
 * delayed or failed set is ordered by run or fail time, so its head is the oldest accepted only approximately.
 */
export async function oldestUnfinishedJob(queue: Pick<Queue, 'getJobs'>): Promise<number | null> {
  const heads = await queue.getJobs(['wait', 'prioritized', 'delayed', 'active', 'failed'], 0, 0, true)
  let oldest: number | null = null
  for (const job of heads) if (job !== undefined && (oldest === null || job.timestamp < oldest)) oldest = job.timestamp
  return oldest
}
