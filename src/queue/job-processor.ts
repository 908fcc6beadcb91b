/**
 * Turns a plain function of validated job data into a BullMQ processor: the payload is checked against its schema
 * first, and a payload that fails, or a PermanentFailure thrown by the function, fails the job at once with
 * BullMQ's UnrecoverableError instead of being retried with backoff.
 */
import { UnrecoverableError, type Job } from 'bullmq'
import * as v from 'valibot'
import { PermanentFailure } from './model/permanent-failure.js'

/** What a processor may know about its job besides the data. */
export interface JobMeta {
  id: string
  queueName: string
  /** Attempts already made before this one (0 on the first). */
  attemptsMade: number
}

/** A plain processor: validated data in, result out. */
export type JobHandler<T, R> = (data: T, meta: JobMeta) => Promise<R>

/** A BullMQ processor function. */
export type JobProcessor<R> = (job: Job) => Promise<R>

/** Wraps `handle` for BullMQ; `what` names the payload in the failure message (`invalid ${what}: ...`). */
export function createJobProcessor<S extends v.GenericSchema, R>(what: string, schema: S, handle: JobHandler<v.InferOutput<S>, R>): JobProcessor<R> {
  return async (job) => {
    const parsed = v.safeParse(schema, job.data)
    if (!parsed.success) throw new UnrecoverableError(`invalid ${what}: ${parsed.issues[0]?.message ?? 'bad payload'}`)
    try {
      return await handle(parsed.output, { id: String(job.id), queueName: job.queueName, attemptsMade: job.attemptsMade })
    } catch (err) {
      if (err instanceof PermanentFailure) throw new UnrecoverableError(err.message)
      throw err
    }
  }
}
