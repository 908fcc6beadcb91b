/**
 * The consumers a worker can run, and the policy of its queue consumers (bind, log, audit): how many jobs each runs at
 * once, and how loudly a failed job attempt is logged. Pure: the BullMQ workers that apply it are built by
 * queue/job-consumer.ts.
 */
import type { FailureKind } from './failure-kind.js'

/** The consumers that are BullMQ workers, each reading the queue of its name (delivery reads none). */
export const JOB_CONSUMERS = ['bind', 'log', 'audit'] as const

/** One of JOB_CONSUMERS. */
export type JobConsumerName = (typeof JOB_CONSUMERS)[number]

/**
 * Consumers a worker can run: the queue consumers, `delivery`, which posts stored entries to Discord, and `push`,
 * which publishes changed blocks to live Roblox servers through Open Cloud messaging.
 */
export type ConsumerName = JobConsumerName | 'delivery' | 'push'

/** Every consumer, in start order. */
export const CONSUMERS: readonly ConsumerName[] = [...JOB_CONSUMERS, 'delivery', 'push']

/** Concurrency per consumer: binds serialize on row locks anyway; log inserts are independent. */
export const CONSUMER_CONCURRENCY: Readonly<Record<JobConsumerName, number>> = { bind: 16, log: 32, audit: 16 }

/** The log level and message of a failed job attempt. */
export interface FailedAttemptLog {
  level: 'error' | 'warn' | 'debug'
  message: string
}

/**
 * How a failed attempt is logged. A job parked in the failed set (`parked`: it has finished) needs `jobs redrive`:
 * an error. A retry after an infrastructure failure is debug only: during an outage every waiting job fails every
 * 10 s, and the outage is logged by the connections. Any other retry is a warning.
 */
export function failedAttemptLog(parked: boolean, kind: FailureKind): FailedAttemptLog {
  if (parked) return { level: 'error', message: 'job failed for good' }
  return { level: kind === 'infrastructure' ? 'debug' : 'warn', message: 'job attempt failed, retrying' }
}
