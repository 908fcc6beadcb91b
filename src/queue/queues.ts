/** BullMQ queue handles (producers) and the job defaults: retries chosen by the kind of failure, bounded history. */
import { Queue, QueueEvents, type DefaultJobOptions } from 'bullmq'
import type { Redis } from 'ioredis'
import type { LogJob } from './model/jobs.js'
import type { JobName, QueueName } from './names.js'
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

/** Creates the event stream listener a producer needs to wait for results. */
export function createQueueEvents(name: QueueName, connection: Redis, prefix: string): QueueEvents {
  return new QueueEvents(name, { connection, prefix })
}

/** Adds one log job under its job id (a repeated id is a no-op, so retried requests store one entry). */
export type EnqueueLog = (job: LogJob, jobId: string) => Promise<void>

/** Creates the producer of log jobs named `jobName` on `queue` (the log queue, or the audit queue). */
export function createLogProducer(queue: Queue, jobName: JobName): EnqueueLog {
  return async (job, jobId) => {
    await queue.add(jobName, job, { jobId })
  }
}

/**
 * When the oldest job of `queue` that is waiting, delayed, active or failed was accepted (epoch ms); null when there
 * is none. Peeks the head of each state (one range read each, and one hash read per job found), never a scan; a
 * delayed or failed set is ordered by run or fail time, so its head is the oldest accepted only approximately.
 */
export async function oldestUnfinishedJob(queue: Queue): Promise<number | null> {
  const heads = await queue.getJobs(['wait', 'prioritized', 'delayed', 'active', 'failed'], 0, 0, true)
  let oldest: number | null = null
  for (const job of heads) if (job !== undefined && (oldest === null || job.timestamp < oldest)) oldest = job.timestamp
  return oldest
}
