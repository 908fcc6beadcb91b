/**
 * How every BullMQ worker of the service retries and recovers jobs: the backoff strategy that asks
 * queue/model/failure-kind.ts whether a failure is permanent, infrastructure or unknown, and the lock and stalled-job
 * settings that hand a killed worker's jobs to another within seconds.
 */
import type { WorkerOptions } from 'bullmq'
import { failureKind, retryDelay, RETRY_POLICY, type RetryPolicy } from './model/failure-kind.js'

/** The custom backoff type of the service's jobs; the workers' `settings.backoffStrategy` computes it. */
export const BACKOFF_BY_FAILURE_KIND = 'by-failure-kind'

/**
 * Attempts of a job: without limit in practice (BullMQ needs a number). Only the backoff strategy ends a job's
 * retries, for permanent failures and for unknown ones past RetryPolicy.unknownAttempts.
 */
export const UNLIMITED_ATTEMPTS = Number.MAX_SAFE_INTEGER

/**
 * A worker's job lock lasts 5 s and is renewed every 2.5 s; every 2 s each worker moves jobs whose lock has expired
 * back to wait. A SIGKILLed worker's active jobs therefore run again 5-9 s after its last renewal (BullMQ's defaults,
 * 30 s and 30 s, gave 30-90 s). The cost is one lock-renewal script per worker every 2.5 s and one stalled-check script
 * per queue and worker every 2 s. A worker whose event loop stalls longer than 5 s loses its lock and its job runs
 * twice; processors are idempotent (log entries dedupe on the job id, binds answer already_bound).
 */
export const JOB_LOCK_MS = 5000

/** How often each worker looks for jobs whose lock expired (see JOB_LOCK_MS). */
export const STALLED_CHECK_MS = 2000

/**
 * A job that stalls (its worker died) is never failed for stalling: it goes back to wait every time. A job that
 * kills every worker that takes it keeps coming back; the oldest-unstored-event gauge and the `stalled` log show it.
 */
export const MAX_STALLED_COUNT = Number.MAX_SAFE_INTEGER

/** The options every service worker gets besides its connection, prefix and concurrency. */
export function workerRetryOptions(
  policy: RetryPolicy = RETRY_POLICY,
  random: () => number = Math.random,
): Pick<WorkerOptions, 'lockDuration' | 'stalledInterval' | 'maxStalledCount' | 'settings'> {
  return {
    lockDuration: JOB_LOCK_MS,
    stalledInterval: STALLED_CHECK_MS,
    maxStalledCount: MAX_STALLED_COUNT,
    settings: {
      // BullMQ calls this only for the custom type; `attemptsMade` is the number of the attempt that just failed.
      // -1 tells BullMQ to fail the job now.
      backoffStrategy: (attemptsMade, _type, err) => retryDelay(failureKind(err), attemptsMade, policy, random()) ?? -1,
    },
  }
}
