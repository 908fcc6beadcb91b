/**
 * A search of `log_entries`, pure: the filter (`presence-link logs search`), the index each search is served by
 * (migration 0007 makes them), the conditions of its one statement, and the entry it returns. Entries come newest
 * first by (received_at, id); a page ends at a cursor, the (received_at, id) of its oldest entry, so the next page
 * starts strictly after it whatever else was stored meanwhile.
 *
 * Each filter column has an index `(column, received_at)` (InnoDB appends the primary key, so it is ordered by
 * received_at, then id), and one `(received_at)` serves a search by time alone. With the leading column fixed by
 * `=` and an optional range on received_at, MariaDB reads that index backwards and stops after `limit` rows: no
 * sort, whatever the table's size. The index is named in the statement (FORCE INDEX) rather than left to the
 * optimizer, which under ORDER BY ... LIMIT may walk a long ordered index instead of a selective one; the choice
 * below takes the filter most likely to be selective: one code, one player (by id, then by name), one event type,
 * one category.
 */
import type { EntryView } from '../../delivery/model/embeds.js'
import type { LogCategoryName } from '../../queue/model/log-categories.js'

/** Most entries one search returns. */
export const MAX_SEARCH_LIMIT = 1000

/** Entries one search returns unless told (`--limit`). */
export const DEFAULT_SEARCH_LIMIT = 50

/** Where a page ended: its oldest entry. The next page holds entries strictly older than it. */
export interface SearchCursor {
  receivedAt: Date
  id: string
}

/** What to search for; every field given must match. Times are the front's `received_at`. */
export interface LogSearchFilter {
  category?: LogCategoryName
  /** Matched by the column's collation: case-insensitive. */
  eventType?: string
  platformUserId?: string
  /** Matched by the column's collation: case-insensitive, as Roblox usernames are. */
  platformUsername?: string
  code?: string
  /** Received at or after. */
  since?: Date
  /** Received before. */
  until?: Date
  /** Only entries older than this cursor (the next page). */
  before?: SearchCursor
  /** At most this many entries, 1..MAX_SEARCH_LIMIT. */
  limit: number
}

/** The columns a search filters on with `=`, each leading an index of its own. */
export type SearchColumn = 'code' | 'platform_user_id' | 'platform_username' | 'event_type' | 'category'

/** The search indexes by what leads them (`time`: received_at alone), as migration 0007 names them. */
export const SEARCH_INDEXES: Readonly<Record<SearchColumn | 'time', string>> = {
  code: 'log_entries_code_time',
  platform_user_id: 'log_entries_player_time',
  platform_username: 'log_entries_username_time',
  event_type: 'log_entries_event_time',
  category: 'log_entries_category_time',
  time: 'log_entries_time',
}

/** The filter's field of each column, most selective first: the first one given leads the search's index. */
const BY_SELECTIVITY: ReadonlyArray<readonly [SearchColumn, keyof LogSearchFilter]> = [
  ['code', 'code'],
  ['platform_user_id', 'platformUserId'],
  ['platform_username', 'platformUsername'],
  ['event_type', 'eventType'],
  ['category', 'category'],
]

/** One statement of a search: its index, its `=` conditions, its time range and cursor, and how many rows to read. */
export interface SearchPlan {
  index: string
  /** `column = value`, the index's leading column first. */
  equal: ReadonlyArray<readonly [SearchColumn, string]>
  /** `received_at >= since`. */
  since: Date | null
  /** `received_at < until`. */
  until: Date | null
  /** `(received_at, id) < (cursor.receivedAt, cursor.id)`. */
  before: SearchCursor | null
  /** The limit plus one: a row beyond the limit says an older page exists. */
  fetch: number
}

/** Plans the statement of a search. */
export function planSearch(filter: LogSearchFilter): SearchPlan {
  const equal: Array<readonly [SearchColumn, string]> = []
  for (const [column, field] of BY_SELECTIVITY) {
    const value = filter[field]
    if (typeof value === 'string') equal.push([column, value])
  }
  return {
    index: SEARCH_INDEXES[equal[0]?.[0] ?? 'time'],
    equal,
    since: filter.since ?? null,
    until: filter.until ?? null,
    before: filter.before ?? null,
    fetch: filter.limit + 1,
  }
}

/** Delivery state of an entry, as stored (`digested`: summarized in a digest message, delivery.md "Digest mode"). */
export type FoundDeliveryState = 'pending' | 'sent' | 'failed' | 'none' | 'digested'

/** One entry a search found, as stored: what an embed shows of it, and the rest of its row. */
export interface FoundLogEntry extends EntryView {
  /** When MySQL stored it (created_at). */
  storedAt: Date
  sourceIp: string | null
  /** The event's extra data as stored (JSON text), or null. */
  data: string | null
  delivery: FoundDeliveryState
}

/** One page: the entries (newest first) and the cursor of the next page, or null when there is none. */
export interface SearchPage {
  entries: FoundLogEntry[]
  next: SearchCursor | null
}

/** The page of `rows` read with `plan`: at most the limit, and a next cursor when a further row was read. */
export function pageOf(plan: SearchPlan, rows: readonly FoundLogEntry[]): SearchPage {
  const entries = rows.slice(0, plan.fetch - 1)
  const last = entries.at(-1)
  return { entries, next: rows.length >= plan.fetch && last !== undefined ? { receivedAt: last.receivedAt, id: last.id } : null }
}
