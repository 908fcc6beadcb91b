/**
 * The search side of `log_entries` (`presence-link logs search`): one statement per page on the index the plan
 * names (mysql/model/log-search.ts), newest first, bounded in time by the server (SEARCH_TIMEOUT_SECONDS), and the
 * cursor of an entry by id. Plain reads: no locks.
 */
import { sql, type RawBuilder, type Selectable } from 'kysely'
import { hasErrno } from './connection.js'
import { viewOf } from './log-entry-rows.js'
import { pageOf, planSearch, type FoundLogEntry, type LogSearchFilter, type SearchCursor, type SearchPage, type SearchPlan } from './model/log-search.js'
import type { Db, LogEntriesTable } from './schema.js'

/** Longest a search statement may run before the server stops it. */
export const SEARCH_TIMEOUT_SECONDS = 30

/** A search the server stopped at SEARCH_TIMEOUT_SECONDS. */
export class SearchTimeoutError extends Error {}

// MariaDB: ER_STATEMENT_TIMEOUT; MySQL: ER_QUERY_TIMEOUT.
const TIMEOUT_ERRNOS = [1969, 3024]

const COLUMNS = sql.raw(
  'id, received_at, created_at, category, event_type, description, platform_username, platform_user_id, issued_by, code, source, source_ip, data, delivery_state',
)

/** The SELECT of a plan, with MySQL's time limit (a comment to MariaDB); EXPLAIN takes it as it is. */
export function searchStatement(plan: SearchPlan, timeoutSeconds = SEARCH_TIMEOUT_SECONDS): RawBuilder<unknown> {
  const where: RawBuilder<unknown>[] = plan.equal.map(([column, value]) => sql`${sql.ref(column)} = ${value}`)
  if (plan.since !== null) where.push(sql`received_at >= ${plan.since}`)
  if (plan.until !== null) where.push(sql`received_at < ${plan.until}`)
  if (plan.before !== null) {
    // The bound on received_at alone is what the index's range uses; the OR then leaves out the cursor and the
    // entries of the same instant at or above its id.
    where.push(sql`received_at <= ${plan.before.receivedAt}`)
    where.push(sql`(received_at < ${plan.before.receivedAt} OR id < ${plan.before.id})`)
  }
  const filter = where.length === 0 ? sql`` : sql`WHERE ${sql.join(where, sql` AND `)}`
  return sql`SELECT /*+ MAX_EXECUTION_TIME(${sql.lit(Math.ceil(timeoutSeconds * 1000))}) */ ${COLUMNS} FROM log_entries FORCE INDEX (${sql.raw(plan.index)}) ${filter} ORDER BY received_at DESC, id DESC LIMIT ${sql.lit(plan.fetch)}`
}

/** The columns a search reads, as selected. */
type SearchRow = Pick<
  Selectable<LogEntriesTable>,
  | 'id'
  | 'received_at'
  | 'created_at'
  | 'category'
  | 'event_type'
  | 'description'
  | 'platform_username'
  | 'platform_user_id'
  | 'issued_by'
  | 'code'
  | 'source'
  | 'source_ip'
  | 'data'
  | 'delivery_state'
>

function entryOf(r: SearchRow): FoundLogEntry {
  return { ...viewOf(r), storedAt: r.created_at, sourceIp: r.source_ip, data: r.data, delivery: r.delivery_state }
}

/**
 * One page of a search, newest first. The statement carries its own time limit: MariaDB runs the executable
 * comment (`SET STATEMENT max_statement_time`), MySQL reads the optimizer hint; each takes the other's for a plain
 * comment. Throws SearchTimeoutError when the server stopped it (SEARCH_TIMEOUT_SECONDS unless told).
 */
export async function searchLogEntries(db: Db, filter: LogSearchFilter, timeoutSeconds = SEARCH_TIMEOUT_SECONDS): Promise<SearchPage> {
  const plan = planSearch(filter)
  try {
    const { rows } = await sql<SearchRow>`/*M!100100 SET STATEMENT max_statement_time=${sql.lit(timeoutSeconds)} FOR */ ${searchStatement(plan, timeoutSeconds)}`.execute(db)
    return pageOf(plan, rows.map(entryOf))
  } catch (err) {
    if (TIMEOUT_ERRNOS.some((errno) => hasErrno(err, errno))) throw new SearchTimeoutError(`the search ran longer than ${timeoutSeconds} s and the server stopped it`, { cause: err })
    throw err
  }
}

/** Where the page before entry `id` starts: its (received_at, id), or null when no entry has that id. */
export async function cursorOf(db: Db, id: string): Promise<SearchCursor | null> {
  const row = await db.selectFrom('log_entries').select(['id', 'received_at']).where('id', '=', id).executeTakeFirst()
  return row === undefined ? null : { receivedAt: row.received_at, id: String(row.id) }
}
