/**
 * Processes log jobs: a `log-batch` job (the events one front accepted together) or a single `log`/`audit` job (the
 * gateway's audit entries, a poison event on its own, jobs of earlier versions). Entries go through the process's
 * group commit (log-group-commit.ts); each entry's dedupe key is `job:{queue}:{event id}` (a single job's id is its
 * event id), so a redelivery stores nothing twice. An event MySQL refuses on its own while the rest of its batch is
 * stored is re-queued as a job of its own under its event id, where it fails visibly (`presence-link jobs failed`).
 */
import type { Job } from 'bullmq'
import type { Logger } from '../lib/logger.js'
import type { NewLogEntry } from '../mysql/log-entry-rows.js'
import { createJobProcessor, type JobProcessor } from './job-processor.js'
import type { LogGroupCommit } from './log-group-commit.js'
import { LogJobSchema, readLogJob, type LogJob } from './model/jobs.js'
import { LogBatchSchema } from './model/log-batch.js'
import { JobName } from './names.js'

/** What storing one job did. */
export interface LogJobOutcome {
  /** Entries stored (now or by an earlier attempt). */
  stored: number
  /** Entries this attempt stored for the first time. */
  created: number
  /** Entries that are infractions. */
  infractions: number
  /** Event ids re-queued as jobs of their own: refused by MySQL, or not a valid event. */
  requeued: string[]
}

/** Adds `event` to queue `queueName` as a single job under `id` (a repeated id is a no-op). */
export type RequeueEvent = (queueName: string, id: string, event: unknown) => Promise<void>

/** What the log processor needs. */
export interface LogProcessorDeps {
  commit: Pick<LogGroupCommit, 'store'>
  requeue: RequeueEvent
  log: Pick<Logger, 'warn'>
}

/** The dedupe key of event `id` accepted on queue `queueName`. */
export function dedupeKeyOf(queueName: string, id: string): string {
  return `job:${queueName}:${id}`
}

/** The entry to store for an event (`receivedAt`: its time as a Date, when the caller has one already). */
export function entryOf(e: LogJob, dedupeKey: string, receivedAt = new Date(e.receivedAt)): NewLogEntry {
  return {
    dedupeKey,
    category: e.category,
    eventType: e.eventType,
    description: e.description,
    platformUsername: e.platformUsername,
    platformUserId: e.platformUserId,
    issuedBy: e.issuedBy,
    code: e.code,
    source: e.source,
    sourceIp: e.sourceIp,
    data: e.data,
    receivedAt,
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/** A single event: stored through the group commit; refused, it fails its job with MySQL's error. */
function singleProcessor(deps: LogProcessorDeps): JobProcessor<LogJobOutcome> {
  return createJobProcessor('log job', LogJobSchema, async (e, meta) => {
    const outcome = await deps.commit.store([entryOf(e, dedupeKeyOf(meta.queueName, meta.id))])
    const refused = outcome.poisoned[0]
    if (refused !== undefined) throw refused.error
    return { stored: outcome.stored, created: outcome.created, infractions: outcome.infractions, requeued: [] }
  })
}

/** A batch: its valid events stored through the group commit; each poison or invalid event re-queued on its own. */
function batchProcessor(deps: LogProcessorDeps): JobProcessor<LogJobOutcome> {
  return createJobProcessor('log batch', LogBatchSchema, async (batch, meta) => {
    const entries: NewLogEntry[] = []
    // The event id of entries[i]: looked up only for an entry MySQL refuses (rare), so no map is built per job.
    const entryIds: string[] = []
    const invalid: Array<{ id: string; event: unknown }> = []
    // The events of one client batch share their time: one Date for them.
    let at: Date | undefined
    for (const { id, event } of batch.events) {
      const parsed = readLogJob(event)
      if (parsed === undefined) {
        invalid.push({ id, event })
        continue
      }
      if (at?.getTime() !== parsed.receivedAt) at = new Date(parsed.receivedAt)
      entries.push(entryOf(parsed, dedupeKeyOf(meta.queueName, id), at))
      entryIds.push(id)
    }
    const outcome = await deps.commit.store(entries)
    const requeued: string[] = []
    // Re-queued before this job completes: a crash in between runs the batch again, which finds the same events.
    for (const { id, event } of invalid) {
      deps.log.warn({ queue: meta.queueName, jobId: meta.id, eventId: id }, 'invalid event in a log batch: re-queued as a job of its own, where it fails')
      await deps.requeue(meta.queueName, id, event)
      requeued.push(id)
    }
    for (const { item, error } of outcome.poisoned) {
      const id = entryIds[entries.indexOf(item)]!
      deps.log.warn({ queue: meta.queueName, jobId: meta.id, eventId: id, err: errorMessage(error) }, 'MySQL refused an event of a log batch: the rest is stored, the event re-queued as a job of its own')
      await deps.requeue(meta.queueName, id, batch.events.find((e) => e.id === id)?.event)
      requeued.push(id)
    }
    return { stored: outcome.stored, created: outcome.created, infractions: outcome.infractions, requeued }
  })
}

/** The log processor as its BullMQ workers run it (the log and audit consumers share it and the group commit). */
export function createLogJobProcessor(deps: LogProcessorDeps): JobProcessor<LogJobOutcome> {
  const single = singleProcessor(deps)
  const batch = batchProcessor(deps)
  // Any other name is a single event, as every log job was before batches (`log`, `audit`).
  return (job: Job) => (job.name === JobName.LogBatch ? batch(job) : single(job))
}
