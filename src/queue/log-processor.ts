/**
 * Processes log jobs (a plain function of the validated job): the entry, and for a moderation entry naming a live
 * code the infraction, stored in one transaction; the job id is the entry's dedupe key, so a redelivery stores nothing twice.
 */
import type { StoredLogEntry, Transactions } from '../mysql/transactions.js'
import type { LogJob } from './model/jobs.js'

/** What storing one job did. */
export type LogJobOutcome = StoredLogEntry

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
