/**
 * The front's side of a bind: submit the job and wait for its result, within BIND_TIMEOUT_MS. The wait is our own
 * timer racing BullMQ's `waitUntilFinished` (whose ttl, a little longer, only backstops a lost event stream), so a
 * timeout is known without reading error messages. The result is validated: a worker of another version answering
 * something else is an error, not a cast.
 */
import type { Queue, QueueEvents } from 'bullmq'
import * as v from 'valibot'
import { BindJobResultSchema, type BindJob, type BindJobResult } from '../schemas/jobs.js'
import { JobName } from './names.js'

/** Few attempts: the caller waits, and a retried bind is safe (the same account gets already_bound). */
export const BIND_ATTEMPTS = 3

/** Pause between bind attempts. */
export const BIND_RETRY_DELAY_MS = 200

// BullMQ's own wait outlives ours by this much, so our timer decides and BullMQ's only catches a wait left hanging.
const BACKSTOP_MS = 1000

/** Submits a bind job and waits; null when it did not finish in time. Throws when Redis is down or the result is invalid. */
export type SubmitBind = (job: BindJob) => Promise<BindJobResult | null>

/** The bind job's result did not match BindJobResultSchema. */
export class InvalidBindResultError extends Error {
  override readonly name = 'InvalidBindResultError'
}

const TIMED_OUT = Symbol('timed out')

/** Creates the submitter over the bind queue and its event stream. */
export function createBindClient(opts: { queue: Queue; events: QueueEvents; timeoutMs: number }): SubmitBind {
  return async (job) => {
    const added = await opts.queue.add(JobName.Bind, job, { attempts: BIND_ATTEMPTS, backoff: { type: 'fixed', delay: BIND_RETRY_DELAY_MS } })
    const finished = added.waitUntilFinished(opts.events, opts.timeoutMs + BACKSTOP_MS)
    // Once our timer has won nobody awaits the backstop; its late rejection must not become an unhandled one.
    finished.catch(() => undefined)
    let timer: NodeJS.Timeout | undefined
    const timedOut = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = setTimeout(() => resolve(TIMED_OUT), opts.timeoutMs)
    })
    try {
      const outcome = await Promise.race([finished, timedOut])
      if (outcome === TIMED_OUT) return null
      const parsed = v.safeParse(BindJobResultSchema, outcome)
      if (!parsed.success) {
        throw new InvalidBindResultError(`bind job ${added.id} finished with an invalid result: ${parsed.issues[0]?.message ?? 'unknown shape'}`)
      }
      return parsed.output
    } finally {
      clearTimeout(timer)
    }
  }
}
