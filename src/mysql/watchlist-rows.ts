/** Every query on `watchlist`: platform (Roblox) user ids staff want reviewed by the safety check. */
import type { Kysely, Selectable } from 'kysely'
import type { Database, Db, WatchlistTable } from './schema.js'

/** The reason column's width (migration 0003): the commands refuse longer reasons (MAX_WATCH_REASON); this only guards the column. */
const REASON_CHARS = 200

/** One watched user. */
export interface WatchEntry {
  platformUserId: string
  reason: string | null
  addedBy: string
  addedAt: Date
}

/** Adds a user (or replaces the reason of one already listed); says which happened. */
export async function addToWatchlist(
  db: Db,
  entry: { platformUserId: string; reason: string | null; addedBy: string },
): Promise<'added' | 'updated'> {
  const reason = entry.reason === null ? null : entry.reason.slice(0, REASON_CHARS)
  const inserted = await db
    .insertInto('watchlist')
    .ignore()
    .values({ platform_user_id: entry.platformUserId, reason, added_by: entry.addedBy.slice(0, 100) })
    .executeTakeFirst()
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) return 'added'
  await db.updateTable('watchlist').set({ reason }).where('platform_user_id', '=', entry.platformUserId).execute()
  return 'updated'
}

/** Removes a user; false when not listed. */
export async function removeFromWatchlist(db: Db, platformUserId: string): Promise<boolean> {
  const result = await db.deleteFrom('watchlist').where('platform_user_id', '=', platformUserId).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** The entry of a user, if listed. */
export async function findOnWatchlist(db: Db, platformUserId: string): Promise<WatchEntry | undefined> {
  const row = await db.selectFrom('watchlist').selectAll().where('platform_user_id', '=', platformUserId).executeTakeFirst()
  return row === undefined ? undefined : toEntry(row)
}

/** Every listed user, newest first. */
export async function listWatchlist(db: Db): Promise<WatchEntry[]> {
  const rows = await db.selectFrom('watchlist').selectAll().orderBy('added_at', 'desc').orderBy('platform_user_id').execute()
  return rows.map(toEntry)
}

function toEntry(row: Selectable<WatchlistTable>): WatchEntry {
  return { platformUserId: String(row.platform_user_id), reason: row.reason, addedBy: row.added_by, addedAt: row.added_at }
}

/** The watchlist's reads and writes. */
export interface WatchlistRows {
  /** Adds a user or replaces the reason of one already listed. */
  add(entry: { platformUserId: string; reason: string | null; addedBy: string }): Promise<'added' | 'updated'>
  /** Removes a user; false when not listed. */
  remove(platformUserId: string): Promise<boolean>
  /** The entry of a user, if listed. */
  find(platformUserId: string): Promise<WatchEntry | undefined>
  /** Every listed user, newest first. */
  list(): Promise<WatchEntry[]>
}

/** Creates the rows over a database. */
export function createWatchlistRows(db: Kysely<Database>): WatchlistRows {
  return {
    add: (entry) => addToWatchlist(db, entry),
    remove: (platformUserId) => removeFromWatchlist(db, platformUserId),
    find: (platformUserId) => findOnWatchlist(db, platformUserId),
    list: () => listWatchlist(db),
  }
}
