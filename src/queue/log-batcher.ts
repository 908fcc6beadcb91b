/**
 * The front's micro-batches of log events: the events accepted while the previous batch is being written go to Redis
 * together, as one `log-batch` job, and each request is answered once that job is in Redis (or fails with it). One
 * write is in flight per front process, so batches reach the queue in the order their events were accepted; an idle
 * front writes an event at once (no timer). Bounded by FRONT_BATCH_MAX_EVENTS and FRONT_BATCH_MAX_BYTES.
 */
import { randomUUID } from 'node:crypto'
import type { LogJob } from './model/jobs.js'
import { entryBytes, FRONT_BATCH_MAX_BYTES, FRONT_BATCH_MAX_EVENTS, type LogBatch } from './model/log-batch.js'
import type { EnqueueLog } from './queues.js'

/** Writes one batch durably as a job under `batchId`; throws when Redis is down. */
export type AddBatch = (batch: LogBatch, batchId: string) => Promise<void>

/** The batching producer of log events. */
export interface LogBatcher {
  /** Enqueues an event under its event id; resolves once its batch is in Redis, rejects with the batch's failure. */
  submit: EnqueueLog
  /** Resolves once every submitted event has been written or failed. */
  drain(): Promise<void>
}

/** Bounds of a batch (the defaults: FRONT_BATCH_MAX_EVENTS, FRONT_BATCH_MAX_BYTES). */
export interface LogBatcherOptions {
  maxEvents?: number
  maxBytes?: number
}

interface Waiting {
  id: string
  job: LogJob
  bytes: number
  resolve(): void
  reject(err: unknown): void
}

/** Creates the batcher over `add` (one BullMQ add of a `log-batch` job, see createBatchAdder). */
export function createLogBatcher(add: AddBatch, options: LogBatcherOptions = {}): LogBatcher {
  const maxEvents = options.maxEvents ?? FRONT_BATCH_MAX_EVENTS
  const maxBytes = options.maxBytes ?? FRONT_BATCH_MAX_BYTES
  let waiting: Waiting[] = []
  let writing = false
  let scheduled = false
  let drainers: Array<() => void> = []

  const take = (): Waiting[] => {
    let bytes = 0
    let n = 0
    while (n < waiting.length && n < maxEvents && (n === 0 || bytes + waiting[n]!.bytes <= maxBytes)) bytes += waiting[n++]!.bytes
    const batch = waiting.slice(0, n)
    waiting = waiting.slice(n)
    return batch
  }

  const write = async (): Promise<void> => {
    scheduled = false
    if (writing || waiting.length === 0) return
    writing = true
    const batch = take()
    try {
      await add({ events: batch.map((w) => ({ id: w.id, event: w.job })) }, `batch-${randomUUID()}`)
      for (const w of batch) w.resolve()
    } catch (err) {
      for (const w of batch) w.reject(err)
    } finally {
      writing = false
      if (waiting.length > 0) schedule()
      else {
        const done = drainers
        drainers = []
        for (const d of done) d()
      }
    }
  }

  // The requests that arrive in the same turn of the event loop join one batch.
  const schedule = () => {
    if (writing || scheduled) return
    scheduled = true
    setImmediate(() => void write())
  }

  return {
    submit: (job, id) =>
      new Promise<void>((resolve, reject) => {
        waiting.push({ id, job, bytes: entryBytes(job), resolve, reject })
        schedule()
      }),
    drain() {
      if (!writing && waiting.length === 0) return Promise.resolve()
      return new Promise((resolve) => drainers.push(resolve))
    },
  }
}
