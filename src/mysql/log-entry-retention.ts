/**
 * The retention side of `log_entries` (log-entry-rows.ts has the ingest and delivery side): windows of entries read
 * by primary key with whether an infraction references each, and the bounded DELETE of old ones. Every statement is
 * a short autocommit one: a window is a plain read (no locks), a DELETE locks only the rows it names by id.
 */
import { sql } from 'kysely'
import type { WindowRow } from './model/retention-window.js'
import type { Db } from './schema.js'

/** The database's clock, the one `created_at` is written with (DEFAULT CURRENT_TIMESTAMP(3)). */
export async function databaseNow(db: Db): Promise<Date> {
  const { rows } = await sql<{ now: Date }>`SELECT NOW(3) AS now`.execute(db)
  return rows[0]!.now
}

/**
 * The next `limit` entries after id `afterId`, in id order: a range of the primary key, each joined to the unique
 * index of infractions on log_entry_id.
 */
export async function readRetentionWindow(db: Db, afterId: string, limit: number): Promise<WindowRow[]> {
  const rows = await db
    .selectFrom('log_entries as e')
    .leftJoin('infractions as i', 'i.log_entry_id', 'e.id')
    .select(['e.id', 'e.created_at', 'e.delivery_state', 'i.id as infraction_id'])
    .where('e.id', '>', afterId)
    .orderBy('e.id')
    .limit(limit)
    .execute()
  return rows.map((r) => ({ id: String(r.id), createdAt: r.created_at, pending: r.delivery_state === 'pending', referenced: r.infraction_id !== null }))
}

/**
 * Deletes the entries `ids` (at most one batch) that are still stored before `cutoff` and not pending delivery (a
 * replay may have put one back to pending since the window was read); returns how many went. An entry an infraction
 * references is never among `ids`; were one there, the foreign key would fail the statement and delete nothing.
 */
export async function deleteOldEntries(db: Db, ids: readonly string[], cutoff: Date): Promise<number> {
  if (ids.length === 0) return 0
  const result = await db
    .deleteFrom('log_entries')
    .where('id', 'in', [...ids])
    .where('created_at', '<', cutoff)
    .where('delivery_state', '<>', 'pending')
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** The prune's view of `log_entries`. */
export interface RetentionRows {
  /** The database's clock. */
  now(): Promise<Date>
  /** The next entries after an id, in id order. */
  window(afterId: string, limit: number): Promise<WindowRow[]>
  /** Deletes old, delivered entries by id; returns how many went. */
  delete(ids: readonly string[], cutoff: Date): Promise<number>
}

/** Creates the rows over a database. */
export function createRetentionRows(db: Db): RetentionRows {
  return {
    now: () => databaseNow(db),
    window: (afterId, limit) => readRetentionWindow(db, afterId, limit),
    delete: (ids, cutoff) => deleteOldEntries(db, ids, cutoff),
  }
}
