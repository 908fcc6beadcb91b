/**
 * Every query on `log_entries`: the inserts of accepted entries (one by the code service, many at once by the log
 * worker's group commit) and the delivery side (reading pending entries in order, recording what became of them,
 * replays, digests). Callers own any transaction.
 */
import { CompiledQuery, sql, type Kysely, type Selectable, type Transaction } from 'kysely'
import type { DigestRow } from '../delivery/model/digest.js'
import type { EntryView } from '../delivery/model/embeds.js'
import type { LogCategoryName } from '../queue/model/log-categories.js'
import { hasErrno, MysqlErrno } from './connection.js'
import type { Database, Db, DeliveryState, LogEntriesTable } from './schema.js'

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

/** The columns of an inserted entry, in the order `rowValues` gives them. */
const INSERT_COLUMNS = ['dedupe_key', 'category', 'event_type', 'description', 'platform_username', 'platform_user_id', 'issued_by', 'code', 'source', 'source_ip', 'data', 'received_at', 'delivery_state'] as const satisfies readonly (keyof LogEntriesTable)[]

/** The values of an entry's row, in INSERT_COLUMNS' order (the single-entry insert's parameters). */
function rowValues(e: NewLogEntry, delivery: DeliveryState): unknown[] {
  return [
    e.dedupeKey,
    e.category,
    e.eventType,
    e.description,
    e.platformUsername ?? null,
    e.platformUserId ?? null,
    e.issuedBy ?? null,
    e.code ?? null,
    e.source,
    e.sourceIp ?? null,
    e.data === undefined ? null : JSON.stringify(e.data),
    e.receivedAt,
    delivery,
  ]
}

const INSERT_HEAD = `insert into \`log_entries\` (${INSERT_COLUMNS.map((c) => `\`${c}\``).join(', ')}) values `
const ROW_PLACEHOLDERS = `(${INSERT_COLUMNS.map(() => '?').join(', ')})`

// What mysql2's own escaping escapes in a string literal (the server's default mode, with backslash escapes).
const NEEDS_ESCAPE = /[\0\b\t\n\r\x1a"'\\]/
const ESCAPED = /[\0\b\t\n\r\x1a"'\\]/g
const ESCAPES: Readonly<Record<string, string>> = { '\0': '\\0', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\x1a': '\\Z', '"': '\\"', "'": "\\'", '\\': '\\\\' }

/** A string as an SQL literal, escaped as mysql2 escapes it (most texts need no escape and are only quoted). */
export function sqlString(text: string): string {
  return NEEDS_ESCAPE.test(text) ? `'${text.replace(ESCAPED, (c) => ESCAPES[c]!)}'` : `'${text}'`
}

/** A time as a DATETIME(3) literal in UTC, as the pool writes times (timezone 'Z'). */
export function sqlDatetime(at: Date): string {
  return `'${at.toISOString().slice(0, 23).replace('T', ' ')}'`
}

/**
 * The literal of one column row after row, the last value's remembered: the rows of a group often repeat a column
 * (the key's source, the server's IP, the event type, the batch's time), and escaping each value again was most of
 * the statement's cost.
 */
function columnLiterals(): (text: string | null | undefined) => string {
  let last: string | null | undefined
  let literal = 'NULL'
  return (text) => {
    if (text !== last) {
      last = text
      literal = text == null ? 'NULL' : sqlString(text)
    }
    return literal
  }
}

/** The multi-row INSERT of `entries` as one statement text, its literals escaped here, in INSERT_COLUMNS' order. */
export function insertStatement(entries: readonly NewLogEntry[], withDestination: ReadonlySet<LogCategoryName>): string {
  const [eventType, username, userId, issuedBy, code, source, sourceIp] = Array.from({ length: 7 }, columnLiterals)
  let at = Number.NaN
  let atLiteral = ''
  let text = INSERT_HEAD
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!
    const ms = e.receivedAt.getTime()
    if (ms !== at) {
      at = ms
      atLiteral = sqlDatetime(e.receivedAt)
    }
    const data = e.data === undefined ? 'NULL' : sqlString(JSON.stringify(e.data))
    const delivery: DeliveryState = withDestination.has(e.category) ? 'pending' : 'none'
    text += `${i === 0 ? '(' : ',('}${sqlString(e.dedupeKey)},'${e.category}',${eventType!(e.eventType)},${sqlString(e.description)},${username!(e.platformUsername)},${userId!(e.platformUserId)},${issuedBy!(e.issuedBy)},${code!(e.code)},${source!(e.source)},${sourceIp!(e.sourceIp)},${data},${atLiteral},'${delivery}')`
  }
  return text
}

/**
 * Inserts entries in one multi-row INSERT, in the given order (so their ids rise in that order), all or nothing. The
 * caller leaves out entries already stored: a duplicate dedupe key fails the statement (ER_DUP_ENTRY). The statement
 * is written here, its literals escaped as mysql2 escapes them, rather than by the query builder or mysql2's
 * placeholder formatting: for a group of hundreds of rows, building one node per value, or scanning the text for
 * each of thousands of placeholders and escaping value by value, cost the worker more than sending the group.
 *
 * An entry of a category in `withDestination` starts `pending` (to be sent); any other starts `none` (never sent),
 * which the delivery runner would otherwise set by rewriting every such row after the insert (as much work for
 * MySQL as the insert itself). The caller reads `withDestination` under lockDestinationCategories.
 */
export async function insertLogEntries(db: Db, entries: readonly NewLogEntry[], withDestination: ReadonlySet<LogCategoryName>): Promise<void> {
  if (entries.length === 0) return
  await db.executeQuery(CompiledQuery.raw(insertStatement(entries, withDestination)))
}

/** The ids of the stored entries among `dedupeKeys`, by dedupe key (a plain read: takes no locks). */
export async function findLogEntryIds(db: Db, dedupeKeys: readonly string[]): Promise<Map<string, string>> {
  const ids = new Map<string, string>()
  if (dedupeKeys.length === 0) return ids
  const rows = await db.selectFrom('log_entries').select(['id', 'dedupe_key']).where('dedupe_key', 'in', [...dedupeKeys]).execute()
  for (const r of rows) ids.set(r.dedupe_key, String(r.id))
  return ids
}

/** The server's max_allowed_packet in bytes: what one statement, a multi-row INSERT included, may take. */
export async function readMaxAllowedPacket(db: Db): Promise<number> {
  const { rows } = await sql<{ packet: string | number }>`SELECT @@max_allowed_packet AS packet`.execute(db)
  return Number(rows[0]?.packet)
}

/** Inserts an entry; returns its id and whether this call created it (false: already stored by an earlier delivery). */
export async function insertLogEntry(db: Db, e: NewLogEntry): Promise<{ id: string; created: boolean }> {
  try {
    const result = await db.executeQuery(CompiledQuery.raw(INSERT_HEAD + ROW_PLACEHOLDERS, rowValues(e, 'pending')))
    return { id: String(result.insertId), created: true }
  } catch (err) {
    if (!hasErrno(err, MysqlErrno.DuplicateEntry)) throw err
    const row = await db.selectFrom('log_entries').select('id').where('dedupe_key', '=', e.dedupeKey).executeTakeFirstOrThrow()
    return { id: String(row.id), created: false }
  }
}

/** True when the category has an entry waiting (a cheap read that takes no locks). */
export async function hasPending(db: Db, category: LogCategoryName): Promise<boolean> {
  const row = await db
    .selectFrom('log_entries')
    .select('id')
    .where('category', '=', category)
    .where('delivery_state', '=', 'pending')
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/** A pending entry and since when it waits: since it was received, or since a replay made it pending again. */
export type PendingEntry = EntryView & { waitingSince: Date }

/** The columns an embed shows of an entry. */
export const VIEW_COLUMNS = ['id', 'category', 'event_type', 'description', 'platform_username', 'platform_user_id', 'issued_by', 'code', 'source', 'received_at'] as const

/** What an embed shows of a stored row. */
export function viewOf(r: Pick<Selectable<LogEntriesTable>, (typeof VIEW_COLUMNS)[number]>): EntryView {
  return {
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
  }
}

/** The query of the oldest `limit` pending entries of a category, in id order, as a locking read (columns to add). */
function oldestPendingLocked(tx: Transaction<Database>, category: LogCategoryName, limit: number) {
  return tx
    .selectFrom('log_entries')
    .where('category', '=', category)
    .where('delivery_state', '=', 'pending')
    .orderBy('id')
    .limit(limit)
    .modifyEnd(sql`LOCK IN SHARE MODE`)
}

/**
 * The oldest `limit` pending entries of a category, in id order. The read is a locking one: InnoDB makes it wait
 * for a transaction that inserted a lower id but has not committed yet, so an entry committed late is never
 * overtaken by a later one (a plain read would skip it and send it after its successors).
 */
export async function readPending(db: Kysely<Database>, category: LogCategoryName, limit: number): Promise<PendingEntry[]> {
  const rows = await db.transaction().execute((tx) => oldestPendingLocked(tx, category, limit).select([...VIEW_COLUMNS, 'pending_since']).execute())
  return rows.map((r) => ({ ...viewOf(r), waitingSince: r.pending_since ?? r.received_at }))
}

/** How many entries of a category are pending, counted up to `cap` at most (an index range of at most `cap` rows). */
export async function countPending(db: Db, category: LogCategoryName, cap: number): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`
    SELECT COUNT(*) AS n FROM (
      SELECT id FROM log_entries WHERE category = ${category} AND delivery_state = 'pending' ORDER BY id LIMIT ${cap}
    ) AS waiting`.execute(db)
  return Number(rows[0]?.n ?? 0)
}

/**
 * The oldest `limit` pending entries of a category as a digest reads them (id, event type, whether a code is set,
 * received_at), in id order, with the same locking read as {@link readPending}: an entry committed late below them is
 * waited for, so the digest covers every pending entry up to its last id.
 */
export async function readDigestRows(db: Kysely<Database>, category: LogCategoryName, limit: number): Promise<DigestRow[]> {
  const rows = await db
    .transaction()
    .execute((tx) => oldestPendingLocked(tx, category, limit).select(['id', 'event_type', sql<number>`code IS NOT NULL`.as('has_code'), 'received_at']).execute())
  return rows.map((r) => ({ id: String(r.id), eventType: r.event_type, hasCode: Number(r.has_code) === 1, receivedAt: r.received_at }))
}

/** The entries with these ids, by id (a plain read). */
export async function readEntries(db: Db, ids: readonly string[]): Promise<Map<string, EntryView>> {
  const out = new Map<string, EntryView>()
  if (ids.length === 0) return out
  const rows = await db.selectFrom('log_entries').select(VIEW_COLUMNS).where('id', 'in', [...ids]).execute()
  for (const r of rows) out.set(String(r.id), viewOf(r))
  return out
}

/** Ids per UPDATE when a digest marks its entries. */
const MARK_CHUNK = 1000

/** Records entries as summarized in the digest message `messageId` (those still pending; the digest read them pending). */
export async function markDigested(db: Db, ids: readonly string[], messageId: string, at: Date): Promise<number> {
  let marked = 0
  for (let i = 0; i < ids.length; i += MARK_CHUNK) {
    const result = await db
      .updateTable('log_entries')
      .set({ delivery_state: 'digested', delivery_message_id: messageId, delivery_error: null, delivered_at: at })
      .where('id', 'in', ids.slice(i, i + MARK_CHUNK))
      .where('delivery_state', '=', 'pending')
      .executeTakeFirst()
    marked += Number(result.numUpdatedRows)
  }
  return marked
}

/** Records entries as posted in the message `messageId`. */
export async function markSent(db: Db, ids: readonly string[], messageId: string, at: Date): Promise<void> {
  if (ids.length === 0) return
  await db
    .updateTable('log_entries')
    .set({ delivery_state: 'sent', delivery_message_id: messageId, delivery_error: null, delivered_at: at })
    .where('id', 'in', [...ids])
    .where('delivery_state', '=', 'pending')
    .execute()
}

/** Records entries Discord refused for good, with the reason. */
export async function markFailed(db: Db, ids: readonly string[], reason: string): Promise<void> {
  if (ids.length === 0) return
  await db
    .updateTable('log_entries')
    .set({ delivery_state: 'failed', delivery_error: reason.slice(0, 300) })
    .where('id', 'in', [...ids])
    .where('delivery_state', '=', 'pending')
    .execute()
}

/** Marks a category's pending entries `none` (it has no destination); returns how many. */
export async function markNoDestination(db: Db, category: LogCategoryName): Promise<number> {
  const result = await db
    .updateTable('log_entries')
    .set({ delivery_state: 'none' })
    .where('category', '=', category)
    .where('delivery_state', '=', 'pending')
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** Entries of a category by delivery state. */
export async function countDeliveryStates(db: Db, category: LogCategoryName): Promise<Record<DeliveryState, number>> {
  const rows = await db
    .selectFrom('log_entries')
    .select(['delivery_state', (eb) => eb.fn.countAll<string>().as('n')])
    .where('category', '=', category)
    .groupBy('delivery_state')
    .execute()
  const counts: Record<DeliveryState, number> = { pending: 0, sent: 0, failed: 0, none: 0, digested: 0 }
  for (const r of rows) counts[r.delivery_state] = Number(r.n)
  return counts
}

/**
 * Puts a category's entries received at or after `since` back to pending (sent, summarized in a digest, failed or never
 * sent); returns how many. Their wait for the destination counts from now (`pending_since`), not from their receipt.
 */
export async function replayEntries(db: Db, category: LogCategoryName, since: Date, now: Date = new Date()): Promise<number> {
  const result = await db
    .updateTable('log_entries')
    .set({ delivery_state: 'pending', delivery_message_id: null, delivery_error: null, delivered_at: null, pending_since: now })
    .where('category', '=', category)
    .where('received_at', '>=', since)
    .where('delivery_state', 'in', ['sent', 'digested', 'failed', 'none'])
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** The delivery consumer's view of `log_entries`. */
export interface LogEntryRows {
  /** True when the category has an entry waiting. */
  hasPending(category: LogCategoryName): Promise<boolean>
  /** The oldest pending entries of a category, in id order, waiting for earlier uncommitted ones. */
  readPending(category: LogCategoryName, limit: number): Promise<PendingEntry[]>
  /** Pending entries of a category, counted up to `cap`. */
  countPending(category: LogCategoryName, cap: number): Promise<number>
  /** The oldest pending entries of a category as a digest reads them, waiting for earlier uncommitted ones. */
  readDigestRows(category: LogCategoryName, limit: number): Promise<DigestRow[]>
  /** Entries by id. */
  readEntries(ids: readonly string[]): Promise<Map<string, EntryView>>
  /** Records entries as summarized in a digest message. */
  markDigested(ids: readonly string[], messageId: string, at: Date): Promise<number>
  /** Records entries as posted in the message `messageId`. */
  markSent(ids: readonly string[], messageId: string, at: Date): Promise<void>
  /** Records entries Discord refused for good. */
  markFailed(ids: readonly string[], reason: string): Promise<void>
  /** Marks a category's pending entries as having no destination. */
  markNoDestination(category: LogCategoryName): Promise<number>
  /** Entries of a category by delivery state. */
  countDeliveryStates(category: LogCategoryName): Promise<Record<DeliveryState, number>>
  /** Puts a category's entries received since `since` back to pending. */
  replay(category: LogCategoryName, since: Date): Promise<number>
}

/** Creates the rows over a database. */
export function createLogEntryRows(db: Kysely<Database>): LogEntryRows {
  return {
    hasPending: (category) => hasPending(db, category),
    readPending: (category, limit) => readPending(db, category, limit),
    countPending: (category, cap) => countPending(db, category, cap),
    readDigestRows: (category, limit) => readDigestRows(db, category, limit),
    readEntries: (ids) => readEntries(db, ids),
    markDigested: (ids, messageId, at) => markDigested(db, ids, messageId, at),
    markSent: (ids, messageId, at) => markSent(db, ids, messageId, at),
    markFailed: (ids, reason) => markFailed(db, ids, reason),
    markNoDestination: (category) => markNoDestination(db, category),
    countDeliveryStates: (category) => countDeliveryStates(db, category),
    replay: (category, since) => replayEntries(db, category, since),
  }
}
