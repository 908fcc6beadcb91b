/** The delivery side of `log_entries`: reading pending entries in order and recording what became of them. */
import { sql, type Kysely } from 'kysely'
import type { Database, DeliveryState } from '../db/schema.js'
import type { LogCategoryName } from '../schemas/log-request.js'
import type { EntryView } from './embeds.js'

/** True when the category has an entry waiting (a cheap read that takes no locks). */
export async function hasPending(db: Kysely<Database>, category: LogCategoryName): Promise<boolean> {
  const row = await db
    .selectFrom('log_entries')
    .select('id')
    .where('category', '=', category)
    .where('delivery_state', '=', 'pending')
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/**
 * The oldest `limit` pending entries of a category, in id order. The read is a locking one: InnoDB makes it wait
 * for a transaction that inserted a lower id but has not committed yet, so an entry committed late is never
 * overtaken by a later one (a plain read would skip it and send it after its successors).
 */
export async function readPending(db: Kysely<Database>, category: LogCategoryName, limit: number): Promise<EntryView[]> {
  const rows = await db.transaction().execute((tx) =>
    tx
      .selectFrom('log_entries')
      .select(['id', 'category', 'event_type', 'description', 'platform_username', 'platform_user_id', 'issued_by', 'code', 'source', 'received_at'])
      .where('category', '=', category)
      .where('delivery_state', '=', 'pending')
      .orderBy('id')
      .limit(limit)
      .modifyEnd(sql`LOCK IN SHARE MODE`)
      .execute(),
  )
  return rows.map((r) => ({
    id: String(r.id),
    category: r.category,
    eventType: r.event_type,
    description: r.description,
    platformUsername: r.platform_username,
    platformUserId: r.platform_user_id === null ? null : String(r.platform_user_id),
    issuedBy: r.issued_by,
    code: r.code,
    source: r.source,
    receivedAt: r.received_at,
  }))
}

/** Records entries as posted in the message `messageId`. */
export async function markSent(db: Kysely<Database>, ids: readonly string[], messageId: string, at: Date): Promise<void> {
  if (ids.length === 0) return
  await db
    .updateTable('log_entries')
    .set({ delivery_state: 'sent', delivery_message_id: messageId, delivery_error: null, delivered_at: at })
    .where('id', 'in', [...ids])
    .where('delivery_state', '=', 'pending')
    .execute()
}

/** Records entries Discord refused for good, with the reason. */
export async function markFailed(db: Kysely<Database>, ids: readonly string[], reason: string): Promise<void> {
  if (ids.length === 0) return
  await db
    .updateTable('log_entries')
    .set({ delivery_state: 'failed', delivery_error: reason.slice(0, 300) })
    .where('id', 'in', [...ids])
    .where('delivery_state', '=', 'pending')
    .execute()
}

/** Marks a category's pending entries `none` (it has no destination); returns how many. */
export async function markNoDestination(db: Kysely<Database>, category: LogCategoryName): Promise<number> {
  const result = await db
    .updateTable('log_entries')
    .set({ delivery_state: 'none' })
    .where('category', '=', category)
    .where('delivery_state', '=', 'pending')
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** Entries of a category by delivery state. */
export async function countDeliveryStates(db: Kysely<Database>, category: LogCategoryName): Promise<Record<DeliveryState, number>> {
  const rows = await db
    .selectFrom('log_entries')
    .select(['delivery_state', (eb) => eb.fn.countAll<string>().as('n')])
    .where('category', '=', category)
    .groupBy('delivery_state')
    .execute()
  const counts: Record<DeliveryState, number> = { pending: 0, sent: 0, failed: 0, none: 0 }
  for (const r of rows) counts[r.delivery_state] = Number(r.n)
  return counts
}

/** Puts a category's entries received at or after `since` back to pending (sent, failed or never sent); returns how many. */
export async function replayEntries(db: Kysely<Database>, category: LogCategoryName, since: Date): Promise<number> {
  const result = await db
    .updateTable('log_entries')
    .set({ delivery_state: 'pending', delivery_message_id: null, delivery_error: null, delivered_at: null })
    .where('category', '=', category)
    .where('received_at', '>=', since)
    .where('delivery_state', 'in', ['sent', 'failed', 'none'])
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}
