/**
 * The failed set of each queue, for operators: list what ended in failed (a permanent failure, or an unknown error
 * retried RetryPolicy.unknownAttempts times) and re-drive it to wait, with its attempts counted from zero again.
 */
import type { Job, Queue } from 'bullmq'
import type { Redis } from 'ioredis'
import type { QueueName } from './names.js'
import { createQueue } from './queues.js'

/** Producer handles of some queues, for the functions below. */
export type JobQueues = readonly Queue[]

/** Opens handles on `names` over `connection`; close them with closeJobQueues. */
export function openJobQueues(names: readonly QueueName[], connection: Redis, prefix: string): JobQueues {
  return names.map((name) => createQueue(name, connection, prefix))
}

/** Closes handles opened by openJobQueues (not their connection). */
export async function closeJobQueues(queues: JobQueues): Promise<void> {
  await Promise.all(queues.map((q) => q.close()))
}

/** One failed job, as `presence-link jobs failed` prints it. */
export interface FailedJobView {
  queue: string
  id: string
  name: string
  failedReason: string
  attemptsMade: number
  /** When it was accepted (job timestamp), epoch ms. */
  acceptedAt: number
  /** When it was parked as failed, epoch ms (null when BullMQ did not record it). */
  failedAt: number | null
}

function view(queue: string, job: Job): FailedJobView {
  return {
    queue,
    id: String(job.id),
    name: job.name,
    failedReason: job.failedReason ?? '',
    attemptsMade: job.attemptsMade,
    acceptedAt: job.timestamp,
    failedAt: job.finishedOn ?? null,
  }
}

/** The most recently failed `limit` jobs of each queue, newest first per queue, and each queue's failed count. */
export async function listFailedJobs(queues: JobQueues, limit: number): Promise<{ jobs: FailedJobView[]; total: number }> {
  const jobs: FailedJobView[] = []
  let total = 0
  for (const queue of queues) {
    total += await queue.getFailedCount()
    for (const job of (await queue.getFailed(0, limit - 1)) as Job[]) if (job !== undefined) jobs.push(view(queue.name, job))
  }
  return { jobs, total }
}

/** What became of one job a redrive asked for. */
export type RedriveOutcome = { queue: string; id: string; result: 'redriven' } | { id: string; result: 'not_failed' | 'not_found'; queue?: string }

async function redriveOne(queue: Queue, job: Job): Promise<RedriveOutcome> {
  if ((await job.getState()) !== 'failed') return { queue: queue.name, id: String(job.id), result: 'not_failed' }
  await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true })
  return { queue: queue.name, id: String(job.id), result: 'redriven' }
}

/** Moves the named failed jobs back to wait; each id is looked for in every given queue. */
export async function redriveJobs(queues: JobQueues, ids: readonly string[]): Promise<RedriveOutcome[]> {
  const outcomes: RedriveOutcome[] = []
  for (const id of ids) {
    let outcome: RedriveOutcome = { id, result: 'not_found' }
    for (const queue of queues) {
      const job = (await queue.getJob(id)) as Job | undefined
      if (job === undefined) continue
      outcome = await redriveOne(queue, job)
      if (outcome.result === 'redriven') break
    }
    outcomes.push(outcome)
  }
  return outcomes
}

// Failed jobs are read this many at a time when re-driving them all.
const PAGE = 500

/**
 * Moves every job failed at the time of the call back to wait. The ids are read first, so a job that fails again
 * while this runs is not re-driven twice.
 */
export async function redriveAllFailed(queues: JobQueues): Promise<RedriveOutcome[]> {
  const outcomes: RedriveOutcome[] = []
  for (const queue of queues) {
    const count = await queue.getFailedCount()
    const jobs: Job[] = []
    for (let start = 0; start < count; start += PAGE) jobs.push(...((await queue.getFailed(start, Math.min(start + PAGE, count) - 1)) as Job[]))
    for (const job of jobs) if (job !== undefined) outcomes.push(await redriveOne(queue, job))
  }
  return outcomes
}
