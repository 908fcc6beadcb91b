/**
 * The transactions that span tables, each behind one method: a code transition under its row lock together with
 * the moderation entry it writes (the pure transition from codes/model/codes.ts decides inside the lock), and log
 * entries stored together with the infractions they make (one entry, or a group in one multi-row INSERT). The Redis
 * write-through after the commit is the caller's.
 */
import type { Kysely } from 'kysely'
import { applyAction, decideBind, type ActionResult, type BindAttempt, type BindDecision, type CodeAction, type CodeRecord } from '../codes/model/codes.js'
import { findCode, findCodes, findLiveCodeOfUser, updateCode, updateCodeShare, type StoredCode } from './code-rows.js'
import { hasErrno, MysqlErrno } from './connection.js'
import { lockDestinationCategories } from './destination-rows.js'
import { insertInfraction, insertInfractions, type NewInfraction } from './infraction-rows.js'
import { findLogEntryIds, insertLogEntries, insertLogEntry, type NewLogEntry } from './log-entry-rows.js'
import type { Database, Db } from './schema.js'
import type { ShareSetting } from '../presence/model/share.js'

/** What setting a share setting did: no live code, or the code as it now is. */
export type ShareChange = { outcome: 'no_code' } | { outcome: 'changed' | 'unchanged'; next: StoredCode }

/** A bind that made two accounts meet on one code. */
export type BindConflict = NonNullable<Extract<BindDecision, { status: 'invalidated' }>['conflict']>

/** What storing one log entry did. */
export interface StoredLogEntry {
  entryId: string
  created: boolean
  infraction: boolean
}

/** What storing a group of entries did, entry by entry (in the order given). */
export interface StoredLogEntries {
  /** True where this call stored the entry (false: stored before, or earlier in the same group under the same key). */
  created: boolean[]
  /** True where the entry is (now) an infraction of a live code's chat user. */
  infraction: boolean[]
}

/** The cross-table transactions. */
export interface Transactions {
  /** The spec's bind under the code's row lock; a conflict burns the code and stores `conflictEntry` with it. */
  bind(code: string, attempt: BindAttempt, at: Date, conflictEntry: (next: CodeRecord, conflict: BindConflict) => NewLogEntry): Promise<BindDecision<StoredCode>>
  /** Applies an action under the code's row lock; a change is stored with `entry` (and `next` carries the new version). */
  act(code: string, action: CodeAction, at: Date, entry: (next: CodeRecord) => NewLogEntry): Promise<ActionResult<StoredCode>>
  /**
   * Sets the share setting of the user's live code under its row lock (no log entry: it is the user's own choice of
   * what games see); `unchanged` when it already was `share`.
   */
  setShare(chatUserId: string, share: ShareSetting, at: Date): Promise<ShareChange>
  /** Revokes the user's live code (if any) under its row lock, stored with `entry`; the revoked record. */
  revokeLiveCodeOfUser(chatUserId: string, at: Date, entry: (live: StoredCode) => NewLogEntry): Promise<StoredCode | undefined>
  /**
   * Stores a log entry (idempotent per dedupe key) and, for a moderation entry naming a live code, the infraction of
   * that code's chat user, in one transaction; what the entry leaves out of the player is filled from the code's link.
   */
  storeLogEntry(entry: NewLogEntry): Promise<StoredLogEntry>
  /**
   * Stores entries in one transaction, all or nothing: the ones not stored yet (by dedupe key) in one multi-row
   * INSERT, in the given order, then the infractions of the moderation entries naming a live code in one more. The
   * caller bounds the group's size (max_allowed_packet).
   */
  storeLogEntries(entries: readonly NewLogEntry[]): Promise<StoredLogEntries>
}

// A group that lost a race for a dedupe key (another worker stored the same entry between the read and the insert)
// is run again this many times in all; the read then finds the entry.
const DUPLICATE_RACE_ATTEMPTS = 3

/** The infraction an entry makes against `record`, the code it names. */
function infractionOf(e: NewLogEntry, logEntryId: string, record: StoredCode): NewInfraction {
  return {
    logEntryId,
    code: record.code,
    chatUserId: record.chatUserId,
    platformUserId: e.platformUserId ?? record.platformUserId,
    platformUsername: e.platformUsername ?? record.platformUsername,
    eventType: e.eventType,
    description: e.description,
    issuedBy: e.issuedBy ?? null,
  }
}

/** A moderation entry names a code that can take an infraction (an existing, not revoked code). */
function liveCodeOf(e: NewLogEntry, codes: ReadonlyMap<string, StoredCode>): StoredCode | undefined {
  if (e.category !== 'moderation' || e.code == null) return undefined
  const record = codes.get(e.code)
  return record !== undefined && record.state !== 'revoked' ? record : undefined
}

/** True where an entry is the first of `entries` under its dedupe key and not among `stored`. */
function firstNew(entries: readonly NewLogEntry[], stored: Iterable<string>): boolean[] {
  const seen = new Set(stored)
  return entries.map((e) => {
    if (seen.has(e.dedupeKey)) return false
    seen.add(e.dedupeKey)
    return true
  })
}

/**
 * Inserts the entries not stored yet, in one multi-row INSERT (those of a category without a destination start
 * `none`, see insertLogEntries); true where this call stored the entry. The INSERT is tried first without reading: a
 * first delivery (nearly every group) finds none of its keys stored, and the read of every key cost MySQL about a
 * quarter of its work per entry. A duplicate key rolls back that statement only; the keys are then read and the rest
 * inserted.
 */
async function insertNew(tx: Db, entries: readonly NewLogEntry[]): Promise<boolean[]> {
  const withDestination = await lockDestinationCategories(tx)
  const created = firstNew(entries, [])
  try {
    await insertLogEntries(tx, entries.filter((_, i) => created[i]), withDestination)
    return created
  } catch (err) {
    if (!hasErrno(err, MysqlErrno.DuplicateEntry)) throw err
  }
  const stored = await findLogEntryIds(tx, [...new Set(entries.map((e) => e.dedupeKey))])
  const rest = firstNew(entries, stored.keys())
  await insertLogEntries(tx, entries.filter((_, i) => rest[i]), withDestination)
  return rest
}

async function storeGroup(tx: Db, entries: readonly NewLogEntry[]): Promise<StoredLogEntries> {
  const created = await insertNew(tx, entries)
  const infraction = entries.map(() => false)
  const named = entries.filter((e) => e.category === 'moderation' && e.code != null)
  if (named.length === 0) return { created, infraction }
  const codes = new Map((await findCodes(tx, [...new Set(named.map((e) => e.code!))])).map((c) => [c.code, c]))
  const ids = await findLogEntryIds(tx, [...new Set(named.map((e) => e.dedupeKey))])
  const rows: NewInfraction[] = []
  const attached = new Set<string>()
  entries.forEach((e, i) => {
    const record = liveCodeOf(e, codes)
    const id = ids.get(e.dedupeKey)
    if (record === undefined || id === undefined) return
    infraction[i] = true
    if (attached.has(id)) return
    attached.add(id)
    rows.push(infractionOf(e, id, record))
  })
  await insertInfractions(tx, rows)
  return { created, infraction }
}

/** Creates the transactions over a database. */
export function createTransactions(db: Kysely<Database>): Transactions {
  return {
    bind: (code, attempt, at, conflictEntry) =>
      db.transaction().execute(async (tx) => {
        const decision = decideBind(await findCode(tx, code, true), attempt)
        if (decision.next !== null && decision.changed) {
          decision.next = { ...decision.next, version: await updateCode(tx, decision.next, at, decision.status === 'bound') }
          if (decision.status === 'invalidated' && decision.conflict !== null) {
            await insertLogEntry(tx, conflictEntry(decision.next, decision.conflict))
          }
        }
        return decision
      }),

    act: (code, action, at, entry) =>
      db.transaction().execute(async (tx) => {
        const outcome = applyAction(await findCode(tx, code, true), action)
        if (!outcome.ok || !outcome.changed) return outcome
        outcome.next = { ...outcome.next, version: await updateCode(tx, outcome.next, at) }
        await insertLogEntry(tx, entry(outcome.next))
        return outcome
      }),

    setShare: (chatUserId, share, at) =>
      db.transaction().execute(async (tx): Promise<ShareChange> => {
        const live = await findLiveCodeOfUser(tx, chatUserId, true)
        if (live === undefined) return { outcome: 'no_code' }
        if (live.share === share) return { outcome: 'unchanged', next: live }
        return { outcome: 'changed', next: { ...live, share, version: await updateCodeShare(tx, live, share, at) } }
      }),

    revokeLiveCodeOfUser: (chatUserId, at, entry) =>
      db.transaction().execute(async (tx) => {
        const live = await findLiveCodeOfUser(tx, chatUserId, true)
        if (live === undefined) return undefined
        const revoked: StoredCode = { ...live, state: 'revoked' }
        revoked.version = await updateCode(tx, revoked, at)
        await insertLogEntry(tx, entry(live))
        return revoked
      }),

    storeLogEntry: (e) =>
      db.transaction().execute(async (tx) => {
        const { id, created } = await insertLogEntry(tx, e)
        const record = e.category === 'moderation' && e.code != null ? await findCode(tx, e.code) : undefined
        const live = record === undefined ? undefined : liveCodeOf(e, new Map([[record.code, record]]))
        if (live !== undefined) await insertInfraction(tx, infractionOf(e, id, live))
        return { entryId: id, created, infraction: live !== undefined }
      }),

    async storeLogEntries(entries) {
      if (entries.length === 0) return { created: [], infraction: [] }
      for (let attempt = 1; ; attempt++) {
        try {
          return await db.transaction().execute((tx) => storeGroup(tx, entries))
        } catch (err) {
          if (attempt >= DUPLICATE_RACE_ATTEMPTS || !hasErrno(err, MysqlErrno.DuplicateEntry)) throw err
        }
      }
    },
  }
}
