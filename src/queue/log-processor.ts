/**
 * Processes log jobs (a plain function of the validated job): the entry, and for a moderation entry naming a live
 * code the infraction, stored in one transaction; the job id is the entry's dedupe key, so a redelivery stores nothing twice.
 */
import type { StoredLogEntry, Transactions } from '../mysql/transactions.js'
import { LogJobSchema, type LogJob } from './model/jobs.js'
import { createJobProcessor, type JobProcessor } from './job-processor.js'

/** What storing one job did. */
export type LogJobOutcome = StoredLogEntry

/** The log processor as its BullMQ workers run it (the log and audit consumers share it; the payload validated first). */
export function createLogJobProcessor(deps: { transactions: Pick<Transactions, 'storeLogEntry'> }): JobProcessor<LogJobOutcome> {
  return createJobProcessor('log job', LogJobSchema, createLogProcessor(deps))
}

/** Creates the processor. */
export function createLogProcessor(deps: {
  transactions: Pick<Transactions, 'storeLogEntry'>
}): (data: LogJob, meta: { id: string; queueName: string }) => Promise<LogJobOutcome> {
  return (e, meta) =>
    deps.transactions.storeLogEntry({
      dedupeKey: `job:${meta.queueName}:${meta.id}`,
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
      receivedAt: new Date(e.receivedAt),
    })
}
