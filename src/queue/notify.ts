/**
 * The notify queue: the bind worker queues a "your code was linked" notice, the gateway consumes it and sends the DM
 * (the sending itself is gateway/bound-notifier.ts, a plain function of the validated notice).
 */
import { Worker, type Queue } from 'bullmq'
import type { Redis } from 'ioredis'
import type { Logger } from '../lib/logger.js'
import { BoundNoticeSchema, type BoundNotice } from './model/jobs.js'
import { createJobProcessor } from './job-processor.js'
import { JobName, QueueName } from './names.js'
import { workerRetryOptions } from './retries.js'

/** Queues a notice; the job id makes a repeated notice (a retried bind) a no-op. */
export type NotifyBound = (notice: BoundNotice, jobId: string) => Promise<void>

/** Creates the producer over the notify queue. */
export function createNotifyProducer(queue: Queue): NotifyBound {
  return async (notice, jobId) => {
    await queue.add(JobName.NotifyBound, notice, { jobId })
  }
}

/** Notices sent at once by a gateway process. */
export const NOTIFY_CONCURRENCY = 4

/**
 * Creates the notify consumer (not yet running: call `run()` once the Discord client is ready). With `log`, every
 * failed attempt is logged as a warning.
 */
export function createNotifyConsumer<R>(opts: {
  connection: Redis
  prefix: string
  /** NOTIFY_CONCURRENCY by default. */
  concurrency?: number
  send: (notice: BoundNotice) => Promise<R>
  log?: Logger
}): Worker {
  const worker = new Worker(QueueName.Notify, createJobProcessor('bound notice', BoundNoticeSchema, (notice) => opts.send(notice)), {
    connection: opts.connection,
    prefix: opts.prefix,
    concurrency: opts.concurrency ?? NOTIFY_CONCURRENCY,
    autorun: false,
    ...workerRetryOptions(),
  })
  const { log } = opts
  if (log !== undefined) worker.on('failed', (job, err) => log.warn({ jobId: job?.id, err: err.message }, 'bound notice failed'))
  return worker
}
