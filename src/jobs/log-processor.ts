/** Processes log jobs: store the entry, and for a moderation entry naming a live code, the infraction, in one transaction. */
import { UnrecoverableError, type Job } from 'bullmq'
import type { Kysely } from 'kysely'
import * as v from 'valibot'
import { findCode } from '../db/code-repository.js'
import { insertInfraction, insertLogEntry } from '../db/log-repository.js'
import type { Database } from '../db/schema.js'
import { LogJobSchema } from '../schemas/jobs.js'

/** What storing one job did. */
export interface LogJobOutcome {
  entryId: string
  created: boolean
  infraction: boolean
}

/** Creates the processor function a BullMQ worker runs; the job id is the entry's dedupe key. */
export function createLogProcessor(deps: { db: Kysely<Database> }) {
  return async (job: Job): Promise<LogJobOutcome> => {
    const parsed = v.safeParse(LogJobSchema, job.data)
    if (!parsed.success) throw new UnrecoverableError(`invalid log job: ${parsed.issues[0]?.message ?? 'bad payload'}`)
    const e = parsed.output
    return deps.db.transaction().execute(async (tx) => {
      const { id, created } = await insertLogEntry(tx, {
        dedupeKey: `job:${job.queueName}:${job.id}`,
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
      let infraction = false
      if (e.category === 'moderation' && e.code !== null) {
        const record = await findCode(tx, e.code)
        if (record !== undefined && record.state !== 'revoked') {
          await insertInfraction(tx, {
            logEntryId: id,
            code: record.code,
            chatUserId: record.chatUserId,
            platformUserId: e.platformUserId ?? record.platformUserId,
            platformUsername: e.platformUsername ?? record.platformUsername,
            eventType: e.eventType,
            description: e.description,
            issuedBy: e.issuedBy,
          })
          infraction = true
        }
      }
      return { entryId: id, created, infraction }
    })
  }
}
