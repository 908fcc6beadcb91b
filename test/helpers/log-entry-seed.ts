/**
 * Log entries and infractions written straight into a test database with a chosen age (`created_at` set from the
 * database's clock, as the column default would have), for the retention tests.
 */
import { sql, type Kysely } from 'kysely'
import type { Database, DeliveryState } from '../../src/mysql/schema.js'

/** What to seed: `count` entries stored `ageDays` ago (fractions allowed), in one delivery state. */
export interface Seed {
  count: number
  ageDays: number
  state?: DeliveryState
  /** Prefix of their event type (and dedupe keys), to tell groups apart. */
  tag: string
}

/** Inserts the entries in one statement, ids rising in the order given; returns their ids. */
export async function seedEntries(db: Kysely<Database>, seed: Seed): Promise<string[]> {
  const seconds = Math.round(seed.ageDays * 86400)
  const rows = Array.from(
    { length: seed.count },
    (_, i) =>
      sql`(${`seed:${seed.tag}:${i}`}, 'server', ${seed.tag}, ${`${seed.tag} #${i} said something`}, 'test', NOW(3) - INTERVAL ${seconds} SECOND, NOW(3) - INTERVAL ${seconds} SECOND, ${seed.state ?? 'sent'})`,
  )
  await sql`INSERT INTO log_entries (dedupe_key, category, event_type, description, source, received_at, created_at, delivery_state) VALUES ${sql.join(rows)}`.execute(db)
  const ids = await db.selectFrom('log_entries').select('id').where('event_type', '=', seed.tag).orderBy('id').execute()
  return ids.map((r) => String(r.id))
}

/** Attaches an infraction to an entry, pardoned when `pardonedBy` is given; returns the infraction's id. */
export async function seedInfraction(db: Kysely<Database>, logEntryId: string, pardonedBy?: string): Promise<string> {
  await sql`INSERT INTO infractions (log_entry_id, code, chat_user_id, platform_user_id, platform_username, event_type, description, issued_by)
    VALUES (${logEntryId}, 'AB12', '100000000000000042', 1234, 'Player1', 'ban', ${`evidence of ${logEntryId}`}, 'mod')`.execute(db)
  const row = await db.selectFrom('infractions').select('id').where('log_entry_id', '=', logEntryId).executeTakeFirstOrThrow()
  if (pardonedBy !== undefined) {
    await db.updateTable('infractions').set({ pardoned_at: new Date('2026-01-02T03:04:05.000Z'), pardoned_by: pardonedBy, pardon_reason: 'appeal granted' }).where('id', '=', row.id).execute()
  }
  return String(row.id)
}

/** Every entry's id, in id order. */
export async function entryIds(db: Kysely<Database>): Promise<string[]> {
  return (await db.selectFrom('log_entries').select('id').orderBy('id').execute()).map((r) => String(r.id))
}

/** Every infraction, whole, in id order (to compare before and after a prune). */
export async function allInfractions(db: Kysely<Database>): Promise<unknown[]> {
  return db.selectFrom('infractions').selectAll().orderBy('id').execute()
}
