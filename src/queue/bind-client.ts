/**
 * The front's side of a bind: submit the job and wait for its result, within BIND_TIMEOUT_MS: the job's events on the
 * queue's event stream, one look at its state in case it finished first, and our own timer, so a timeout is known
 * without reading error messages. The result is validated: a worker of another version answering
 * something else is an error, not a cast.
 */
import { randomUUID } from 'node:crypto'
import type { EventEmitter } from 'node:events'
import { Job, type Queue, type QueueEvents } from 'bullmq'
import * as v from 'valibot'
import { BindJobResultSchema, type BindJob, type BindJobResult } from './model/jobs.js'
import { JobName } from './names.js'

/** Few attempts: the caller waits, and a retried bind is safe (the same account gets already_bound). */
export const BIND_ATTEMPTS = 3

/** Pause between bind attempts. */
export const BIND_RETRY_DELAY_MS = 200

/** Submits a bind job and waits; null when it did not finish in time. Throws when Redis is down or the result is invalid. */
export type SubmitBind = (job: BindJob) => Promise<BindJobResult | null>

/** The bind job's result did not match BindJobResultSchema. */
export class InvalidBindResultError extends Error {
  override readonly name = 'InvalidBindResultError'
}

const TIMED_OUT = Symbol('timed out')

/**
 * Resolves with the job's return value once it completes, rejects once it fails or Redis cannot be read, and resolves
 * TIMED_OUT after `timeoutMs`. BullMQ's own `waitUntilFinished` checks the job's state inside a promise executor, so
 * a Redis error there (Redis killed mid-bind, on the fail-fast connection) became an unhandled rejection that killed
 * the front worker; here every Redis call is awaited inside a handled chain.
 */
function waitForJob(queue: Queue, events: QueueEvents, jobId: string, timeoutMs: number): Promise<unknown> {
  // Per-job event names (`completed:<id>`) are emitted by QueueEvents but not in its typed listener map.
  const stream = events as unknown as EventEmitter
  return new Promise((resolve, reject) => {
    let settled = false
    const completedEvent = `completed:${jobId}`
    const failedEvent = `failed:${jobId}`
    const settle = (fn: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      stream.off(completedEvent, onCompleted)
      stream.off(failedEvent, onFailed)
      fn()
    }
    const onCompleted = (args: { returnvalue: unknown }) => settle(() => resolve(args.returnvalue))
    const onFailed = (args: { failedReason: string }) => settle(() => reject(new Error(args.failedReason)))
    /** Settles from the job's stored state if it has finished; `otherwise` runs when it has not. */
    const lookAtJob = async (otherwise: () => void) => {
      const state = await queue.getJobState(jobId)
      if (state === 'completed') {
        const job = await Job.fromId(queue, jobId)
        settle(() => resolve(job?.returnvalue))
      } else if (state === 'failed') {
        const job = await Job.fromId(queue, jobId)
        settle(() => reject(new Error(job?.failedReason ?? 'bind job failed')))
      } else otherwise()
    }
    // At the deadline the job is looked at once more: its completion event may have gone by while the event stream's
    // connection was away (a Redis failover), and a bind that was made must not be answered as timed out.
    const timer = setTimeout(() => {
      if (settled) return
      lookAtJob(() => settle(() => resolve(TIMED_OUT))).catch(() => settle(() => resolve(TIMED_OUT)))
    }, timeoutMs)
    stream.on(completedEvent, onCompleted)
    stream.on(failedEvent, onFailed)
    // The job may have finished before the listeners were attached: look once, after the event stream is listening.
    events
      .waitUntilReady()
      .then(() => lookAtJob(() => undefined))
      .catch((err: unknown) => settle(() => reject(err)))
  })
}

/**
 * Creates the submitter over the bind queue and its event stream. With `confirm`, a bind that bound (or found the
 * code already bound) is answered only once replicas hold every write made so far, the worker's included
 * (replica-wait.ts `all`); it throws otherwise, and the route answers 503 (a retry gets already_bound).
 */
export function createBindClient(opts: { queue: Queue; events: QueueEvents; timeoutMs: number; confirm?: () => Promise<void> }): SubmitBind {
  return async (job) => {
    // A random id, not BullMQ's counter: after a Redis failover the counter on the new primary hands out ids again,
    // and a wait by counter id could be answered with another bind's completion (a bind answered `bound` that was
    // never made, seen in the data-partition scenario). A random id is found nowhere but where this job went.
    const jobId = `bind-${randomUUID()}`
    await opts.queue.add(JobName.Bind, job, { jobId, attempts: BIND_ATTEMPTS, backoff: { type: 'fixed', delay: BIND_RETRY_DELAY_MS } })
    const outcome = await waitForJob(opts.queue, opts.events, jobId, opts.timeoutMs)
    if (outcome === TIMED_OUT) return null
    const parsed = v.safeParse(BindJobResultSchema, outcome)
    if (!parsed.success) {
      throw new InvalidBindResultError(`bind job ${jobId} finished with an invalid result: ${parsed.issues[0]?.message ?? 'unknown shape'}`)
    }
    if (parsed.output.status === 'bound' || parsed.output.status === 'already_bound') await opts.confirm?.()
    return parsed.output
  }
}
