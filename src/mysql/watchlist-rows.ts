/** The staff watchlist of platform (Roblox) user ids in MySQL; the safety check answers `review` for anyone on it. */
import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'

/** One watched user. */
export interface WatchEntry {
  platformUserId: string
  reason: string | null
  addedBy: string
  addedAt: Date
}

/** A platform user id as the watchlist takes it: a positive whole number of at most 16 digits. */
export const PLATFORM_USER_ID = /^[1-9]\d{0,15}$/

/** Longest stored reason. */
export const MAX_WATCH_REASON = 200

/** Adds a user (or replaces the reason of one already listed); says which happened. */
export async function addToWatchlist(
  db: Kysely<Database>,
  entry: { platformUserId: string; reason: string | null; addedBy: string },
): Promise<'added' | 'updated'> {
  const reason = entry.reason === null ? null : entry.reason.slice(0, MAX_WATCH_REASON)
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
export async function removeFromWatchlist(db: Kysely<Database>, platformUserId: string): Promise<boolean> {
  const result = await db.deleteFrom('watchlist').where('platform_user_id', '=', platformUserId).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** The entry of a user, if listed. */
export async function findOnWatchlist(db: Kysely<Database>, platformUserId: string): Promise<WatchEntry | undefined> {
  const row = await db.selectFrom('watchlist').selectAll().where('platform_user_id', '=', platformUserId).executeTakeFirst()
  return row === undefined ? undefined : toEntry(row)
}

/** Every listed user, newest first. */
export async function listWatchlist(db: Kysely<Database>): Promise<WatchEntry[]> {
  const rows = await db.selectFrom('watchlist').selectAll().orderBy('added_at', 'desc').orderBy('platform_user_id').execute()
  return rows.map(toEntry)
}

function toEntry(row: { platform_user_id: string; reason: string | null; added_by: string; added_at: Date }): WatchEntry {
  return { platformUserId: String(row.platform_user_id), reason: row.reason, addedBy: row.added_by, addedAt: row.added_at }
}
