/**
 * Every query on `infractions` (moderation entries that named a live code, attached to its chat user): the insert
 * made with the log entry, and the pages and counts the info endpoint, the safety check and staff commands read.
 */
import { sql, type Kysely, type SelectQueryBuilder, type Selectable } from 'kysely'
import type { Database, Db, InfractionsTable } from './schema.js'

/** One infraction. */
export interface Infraction {
  id: string
  logEntryId: string
  code: string
  chatUserId: string
  platformUserId: string | null
  platformUsername: string | null
  eventType: string
  description: string
  issuedBy: string | null
  createdAt: Date
  /** Set once staff pardoned it: it stays listed but no longer counts for the safety verdict. */
  pardon: InfractionPardon | null
}

/** Who pardoned an infraction, when and why. */
export interface InfractionPardon {
  at: Date
  by: string
  reason: string | null
}

/** An infraction to store: its log entry and what it says (the id, time and pardon are the database's). */
export type NewInfraction = Omit<Infraction, 'id' | 'createdAt' | 'pardon'>

/** What a pardon did: `pardoned`, or why nothing changed. */
export type PardonOutcome = { outcome: 'pardoned'; infraction: Infraction } | { outcome: 'already_pardoned'; infraction: Infraction } | { outcome: 'not_found' }

/** Longest pardon reason kept. */
export const MAX_PARDON_REASON = 200

/** Which infractions: every given field must match (none given: all of them). */
export interface InfractionFilter {
  code?: string
  chatUserId?: string
  platformUserId?: string
  /** true: only pardoned ones; false: only those still counting; absent: both. */
  pardoned?: boolean
}

/** A page, newest first; `nextBefore` is the `before` of the next page, null on the last one. */
export interface InfractionPage {
  infractions: Infraction[]
  nextBefore: string | null
}

/** Largest page. */
export const MAX_INFRACTION_PAGE = 100

/** Attaches an entry to a chat user as an infraction (idempotent per entry). */
export async function insertInfraction(db: Db, i: NewInfraction): Promise<void> {
  await sql`
    INSERT IGNORE INTO infractions
      (log_entry_id, code, chat_user_id, platform_user_id, platform_username, event_type, description, issued_by)
    VALUES
      (${i.logEntryId}, ${i.code}, ${i.chatUserId}, ${i.platformUserId}, ${i.platformUsername}, ${i.eventType}, ${i.description}, ${i.issuedBy})
  `.execute(db)
}

/** Attaches many entries to their chat users in one INSERT (idempotent per entry, as insertInfraction). */
export async function insertInfractions(db: Db, list: readonly NewInfraction[]): Promise<void> {
  if (list.length === 0) return
  const rows = list.map(
    (i) => sql`(${i.logEntryId}, ${i.code}, ${i.chatUserId}, ${i.platformUserId}, ${i.platformUsername}, ${i.eventType}, ${i.description}, ${i.issuedBy})`,
  )
  await sql`
    INSERT IGNORE INTO infractions
      (log_entry_id, code, chat_user_id, platform_user_id, platform_username, event_type, description, issued_by)
    VALUES ${sql.join(rows)}
  `.execute(db)
}

function filtered<O>(q: SelectQueryBuilder<Database, 'infractions', O>, f: InfractionFilter): SelectQueryBuilder<Database, 'infractions', O> {
  let out = q
  if (f.code !== undefined) out = out.where('code', '=', f.code)
  if (f.chatUserId !== undefined) out = out.where('chat_user_id', '=', f.chatUserId)
  if (f.platformUserId !== undefined) out = out.where('platform_user_id', '=', f.platformUserId)
  if (f.pardoned !== undefined) out = out.where('pardoned_at', f.pardoned ? 'is not' : 'is', null)
  return out
}

function toInfraction(r: Selectable<InfractionsTable>): Infraction {
  return {
    id: String(r.id),
    logEntryId: String(r.log_entry_id),
    code: r.code,
    chatUserId: r.chat_user_id,
    platformUserId: r.platform_user_id === null ? null : String(r.platform_user_id),
    platformUsername: r.platform_username,
    eventType: r.event_type,
    description: r.description,
    issuedBy: r.issued_by,
    createdAt: r.created_at,
    pardon: r.pardoned_at === null ? null : { at: r.pardoned_at, by: r.pardoned_by ?? '?', reason: r.pardon_reason },
  }
}

/** Lists infractions newest first, `limit` (1-100) per page, older than the infraction id `before` when given. */
export async function listInfractions(db: Db, opts: InfractionFilter & { limit: number; before?: string }): Promise<InfractionPage> {
  const limit = Math.max(1, Math.min(MAX_INFRACTION_PAGE, Math.floor(opts.limit)))
  let q = filtered(db.selectFrom('infractions').selectAll(), opts)
  if (opts.before !== undefined) q = q.where('id', '<', opts.before)
  const rows = await q.orderBy('id', 'desc').limit(limit + 1).execute()
  const page = rows.slice(0, limit).map(toInfraction)
  return { infractions: page, nextBefore: rows.length > limit ? (page[page.length - 1]?.id ?? null) : null }
}

/** Counts the infractions matching every given field. */
export async function countInfractions(db: Db, filter: InfractionFilter): Promise<number> {
  const row = await filtered(db.selectFrom('infractions').select((eb) => eb.fn.countAll<string>().as('n')), filter).executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Finds one infraction by id. */
export async function findInfraction(db: Db, id: string): Promise<Infraction | undefined> {
  const row = await db.selectFrom('infractions').selectAll().where('id', '=', id).executeTakeFirst()
  return row === undefined ? undefined : toInfraction(row)
}

/**
 * Marks an infraction pardoned (the row stays; the safety verdict stops counting it). A second pardon changes
 * nothing, so the first pardoner and reason are kept.
 */
export async function pardonInfraction(db: Db, id: string, by: string, reason: string | null): Promise<PardonOutcome> {
  const result = await db
    .updateTable('infractions')
    .set({ pardoned_at: sql<Date>`CURRENT_TIMESTAMP(3)`, pardoned_by: by.slice(0, 100), pardon_reason: reason === null ? null : reason.slice(0, MAX_PARDON_REASON) })
    .where('id', '=', id)
    .where('pardoned_at', 'is', null)
    .executeTakeFirst()
  const infraction = await findInfraction(db, id)
  if (infraction === undefined) return { outcome: 'not_found' }
  return { outcome: Number(result.numUpdatedRows) > 0 ? 'pardoned' : 'already_pardoned', infraction }
}

/** Counts the infractions of a person known by a chat user id, a platform user id, or both (either matches); pardoned ones do not count. */
export async function countInfractionsOfPerson(db: Db, who: { chatUserId?: string | null; platformUserId?: string | null }): Promise<number> {
  const chat = who.chatUserId ?? null
  const platform = who.platformUserId ?? null
  if (chat === null && platform === null) return 0
  const row = await db
    .selectFrom('infractions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('pardoned_at', 'is', null)
    .where((eb) => {
      const any = []
      if (chat !== null) any.push(eb('chat_user_id', '=', chat))
      if (platform !== null) any.push(eb('platform_user_id', '=', platform))
      return eb.or(any)
    })
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** The reads on `infractions` and the pardon (the insert happens inside the log entry's transaction, transactions.ts). */
export interface InfractionRows {
  /** Marks an infraction pardoned. */
  pardon(id: string, by: string, reason: string | null): Promise<PardonOutcome>
  /** A page of infractions, newest first. */
  list(opts: InfractionFilter & { limit: number; before?: string }): Promise<InfractionPage>
  /** Counts the infractions matching every given field. */
  count(filter: InfractionFilter): Promise<number>
  /** Counts the unpardoned infractions of a person known by either id. */
  countOfPerson(who: { chatUserId?: string | null; platformUserId?: string | null }): Promise<number>
}

/** Creates the rows over a database. */
export function createInfractionRows(db: Kysely<Database>): InfractionRows {
  return {
    pardon: (id, by, reason) => pardonInfraction(db, id, by, reason),
    list: (opts) => listInfractions(db, opts),
    count: (filter) => countInfractions(db, filter),
    countOfPerson: (who) => countInfractionsOfPerson(db, who),
  }
}
