/**
 * Builds a queue consumer of the worker (bind, log, audit) as a BullMQ worker with the queue policy: its concurrency
 * (queue/model/consumer-policy.ts), the retry and stalled-job settings (queue/retries.ts), and one log line per failed
 * or stalled attempt at the level the policy gives.
 */
import { Worker } from 'bullmq'
import type { Redis } from 'ioredis'
import type { Logger } from '../lib/logger.js'
import { CONSUMER_CONCURRENCY, failedAttemptLog, type JobConsumerName } from './model/consumer-policy.js'
import { failureKind, type RetryPolicy } from './model/failure-kind.js'
import type { JobProcessor } from './job-processor.js'
import { CONSUMER_QUEUES } from './names.js'
import { workerRetryOptions } from './retries.js'

/** The queue a job consumer reads: the one of its name (queue/names.ts). */
export function queueOfConsumer(name: JobConsumerName): string {
  return CONSUMER_QUEUES[name][0]
}

/** Creates the BullMQ worker of consumer `name` on its own blocking connection; it starts taking jobs at once. */
export function createJobConsumer(opts: {
  name: JobConsumerName
  processor: JobProcessor<unknown>
  connection: Redis
  prefix: string
  log: Logger
  /** The retry policy (tests shorten it); RETRY_POLICY by default. */
  retry?: RetryPolicy
}): Worker {
  const { name, log } = opts
  const worker = new Worker(queueOfConsumer(name), opts.processor, {
    connection: opts.connection,
    prefix: opts.prefix,
    concurrency: CONSUMER_CONCURRENCY[name],
    ...workerRetryOptions(opts.retry),
  })
  worker.on('failed', (job, err) => {
    const kind = failureKind(err)
    const parked = job !== undefined && job.finishedOn !== undefined && job.finishedOn !== null
    const { level, message } = failedAttemptLog(parked, kind)
    log[level]({ queue: name, jobId: job?.id, attempt: job?.attemptsMade, kind, err: err.message }, message)
  })
  worker.on('stalled', (jobId) => log.warn({ queue: name, jobId }, 'job stalled (its worker stopped): back to wait'))
  return worker
}
