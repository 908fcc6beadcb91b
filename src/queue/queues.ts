/** BullMQ queue handles (producers) and the job defaults: retries with backoff, bounded history. */
import { Queue, QueueEvents, type DefaultJobOptions } from 'bullmq'
import type { Redis } from 'ioredis'
import type { LogJob } from '../schemas/jobs.js'
import type { JobName, QueueName } from './names.js'

/** Retries with exponential backoff; completed jobs kept an hour, failed ones a week, for inspection. */
export const DEFAULT_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 500 },
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
