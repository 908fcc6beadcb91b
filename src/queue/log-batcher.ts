/**
 * The front's micro-batches of log events: the events accepted while the previous batch is being written go to Redis
 * together, as one `log-batch` job, and each request is answered once that job is in Redis (or fails with it). One
 * write is in flight per front process, so batches reach the queue in the order their events were accepted; an idle
 * front writes an event at once. A busy one lingers: while fewer than FRONT_BATCH_MIN_EVENTS wait, a write starts no
 * sooner than FRONT_BATCH_LINGER_MS after the one before it started, so a moderate stream of single events shares
 * its jobs (a job's fixed cost in Redis and the worker is many times an event's). Bounded by FRONT_BATCH_MAX_EVENTS
 * and FRONT_BATCH_MAX_BYTES. A client's batch (POST /api/v1/log with `events`) is submitted as a unit and never
 * split: its events go into one job, so they are queued, or refused, together.
 */
import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import type { LogJob } from './model/jobs.js'
import { entryBytes, FRONT_BATCH_LINGER_MS, FRONT_BATCH_MAX_BYTES, FRONT_BATCH_MAX_EVENTS, FRONT_BATCH_MIN_EVENTS, type LogBatch } from './model/log-batch.js'
import type { EnqueueLog } from './queues.js'

/** Writes one batch durably as a job under `batchId`; throws when Redis is down. */
export type AddBatch = (batch: LogBatch, batchId: string) => Promise<void>

/** An event and its id (the key of its stored entry). */
export interface IdentifiedEvent {
  id: string
  job: LogJob
}

/** Enqueues events as one unit (in one job, in their order); resolves once that job is in Redis, rejects with its failure. */
export type EnqueueLogs = (events: readonly IdentifiedEvent[]) => Promise<void>

/** The batching producer of log events. */
export interface LogBatcher {
  /** Enqueues an event under its event id; resolves once its batch is in Redis, rejects with the batch's failure. */
  submit: EnqueueLog
  /** Enqueues a client's batch as a unit: never split across jobs (a unit over the bounds goes alone). */
  submitAll: EnqueueLogs
  /** Resolves once every submitted event has been written or failed. */
  drain(): Promise<void>
}

/** Bounds of a batch and its linger (the defaults: FRONT_BATCH_MAX_EVENTS, _MAX_BYTES, _MIN_EVENTS, _LINGER_MS). */
export interface LogBatcherOptions {
  maxEvents?: number
  maxBytes?: number
  /** Once this many events wait, they are written without lingering. */
  minEvents?: number
  /** Fewer events wait until this long after the previous write started (0: never). */
  lingerMs?: number
}

/** A unit waiting to be written: one event, or a client's batch. */
interface Waiting {
  events: readonly IdentifiedEvent[]
  bytes: number
  resolve(): void
  reject(err: unknown): void
}

/** Creates the batcher over `add` (one BullMQ add of a `log-batch` job, see createBatchAdder). */
export function createLogBatcher(add: AddBatch, options: LogBatcherOptions = {}): LogBatcher {
  const maxEvents = options.maxEvents ?? FRONT_BATCH_MAX_EVENTS
  const maxBytes = options.maxBytes ?? FRONT_BATCH_MAX_BYTES
  const minEvents = options.minEvents ?? FRONT_BATCH_MIN_EVENTS
  const lingerMs = options.lingerMs ?? FRONT_BATCH_LINGER_MS
  let waiting: Waiting[] = []
  let waitingEvents = 0
  let writing = false
  /** A write is due: at the next turn (`immediate`) or when the linger ends (`timer`). */
  let scheduled: 'immediate' | 'timer' | null = null
  let lingerTimer: NodeJS.Timeout | undefined
  let lastWriteStart = Number.NEGATIVE_INFINITY
  let drainers: Array<() => void> = []

  // Whole units from the head, within both bounds; the first unit is taken whatever its size.
  const take = (): Waiting[] => {
    let bytes = 0
    let events = 0
    let n = 0
    while (n < waiting.length) {
      const unit = waiting[n]!
      if (n > 0 && (events + unit.events.length > maxEvents || bytes + unit.bytes > maxBytes)) break
      events += unit.events.length
      bytes += unit.bytes
      n++
    }
    const batch = waiting.slice(0, n)
    waiting = waiting.slice(n)
    waitingEvents -= events
    return batch
  }

  const write = async (): Promise<void> => {
    scheduled = null
    clearTimeout(lingerTimer)
    if (writing || waiting.length === 0) return
    writing = true
    lastWriteStart = performance.now()
    const batch = take()
    try {
      const events: LogBatch['events'] = []
      for (const unit of batch) for (const e of unit.events) events.push({ id: e.id, event: e.job })
      await add({ events }, `batch-${randomUUID()}`)
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

  // The requests that arrive in the same turn of the event loop join one batch; a small one waits out the linger.
  const schedule = () => {
    if (writing || scheduled === 'immediate') return
    const lingerLeft = lastWriteStart + lingerMs - performance.now()
    if (waitingEvents >= minEvents || lingerLeft <= 0) {
      if (scheduled === 'timer') clearTimeout(lingerTimer)
      scheduled = 'immediate'
      setImmediate(() => void write())
    } else if (scheduled === null) {
      scheduled = 'timer'
      lingerTimer = setTimeout(() => void write(), lingerLeft)
    }
  }

  const enqueue = (events: readonly IdentifiedEvent[], bytes: number) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ events, bytes, resolve, reject })
      waitingEvents += events.length
      schedule()
    })

  return {
    submit: (job, id) => enqueue([{ id, job }], entryBytes(job)),
    submitAll(events) {
      if (events.length === 0) return Promise.resolve()
      let bytes = 0
      for (const e of events) bytes += entryBytes(e.job)
      return enqueue(events, bytes)
    },
    drain() {
      if (!writing && waiting.length === 0) return Promise.resolve()
      return new Promise((resolve) => drainers.push(resolve))
    },
  }
}
