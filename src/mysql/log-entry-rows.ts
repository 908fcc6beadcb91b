/** Stores log entries and infractions; callers own the transaction. */
import { sql, type Kysely, type Transaction } from 'kysely'
import type { LogCategoryName } from '../schemas/log-request.js'
import type { Database } from './schema.js'
import { hasErrno, MysqlErrno } from './database.js'

type Db = Kysely<Database> | Transaction<Database>

/** One log entry to store. `dedupeKey` makes a redelivered job store nothing twice. */
export interface NewLogEntry {
  dedupeKey: string
  category: LogCategoryName
  eventType: string
  description: string
  platformUsername?: string | null
  platformUserId?: string | null
  issuedBy?: string | null
  code?: string | null
  source: string
  sourceIp?: string | null
  data?: unknown
  receivedAt: Date
}

/** Inserts an entry; returns its id and whether this call created it (false: already stored by an earlier delivery). */
export async function insertLogEntry(db: Db, e: NewLogEntry): Promise<{ id: string; created: boolean }> {
  try {
    const result = await db
      .insertInto('log_entries')
      .values({
        dedupe_key: e.dedupeKey,
        category: e.category,
        event_type: e.eventType,
        description: e.description,
        platform_username: e.platformUsername ?? null,
        platform_user_id: e.platformUserId ?? null,
        issued_by: e.issuedBy ?? null,
        code: e.code ?? null,
        source: e.source,
        source_ip: e.sourceIp ?? null,
        data: e.data === undefined ? null : JSON.stringify(e.data),
        received_at: e.receivedAt,
      })
      .executeTakeFirstOrThrow()
    return { id: String(result.insertId), created: true }
  } catch (err) {
    if (!hasErrno(err, MysqlErrno.DuplicateEntry)) throw err
    const row = await db.selectFrom('log_entries').select('id').where('dedupe_key', '=', e.dedupeKey).executeTakeFirstOrThrow()
    return { id: String(row.id), created: false }
  }
}

/** Attaches an entry to a chat user as an infraction (idempotent per entry). */
export async function insertInfraction(
  db: Db,
  i: {
    logEntryId: string
    code: string
    chatUserId: string
    platformUserId: string | null
    platformUsername: string | null
    eventType: string
    description: string
    issuedBy: string | null
  },
): Promise<void> {
  await sql`
    INSERT IGNORE INTO infractions
      (log_entry_id, code, chat_user_id, platform_user_id, platform_username, event_type, description, issued_by)
    VALUES
      (${i.logEntryId}, ${i.code}, ${i.chatUserId}, ${i.platformUserId}, ${i.platformUsername}, ${i.eventType}, ${i.description}, ${i.issuedBy})
  `.execute(db)
}
