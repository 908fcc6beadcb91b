/**
 * The transactions that span tables, each behind one method: a code transition under its row lock together with
 * the moderation entry it writes (the pure transition from codes/model/codes.ts decides inside the lock), and a log entry
 * stored together with the infraction it makes. The Redis write-through after the commit is the caller's.
 */
import type { Kysely } from 'kysely'
import { applyAction, decideBind, type ActionResult, type BindAttempt, type BindDecision, type CodeAction, type CodeRecord } from '../codes/model/codes.js'
import { findCode, findLiveCodeOfUser, updateCode, type StoredCode } from './code-rows.js'
import { insertInfraction } from './infraction-rows.js'
import { insertLogEntry, type NewLogEntry } from './log-entry-rows.js'
import type { Database } from './schema.js'

/** A bind that made two accounts meet on one code. */
export type BindConflict = NonNullable<Extract<BindDecision, { status: 'invalidated' }>['conflict']>

/** What storing one log entry did. */
export interface StoredLogEntry {
  entryId: string
  created: boolean
  infraction: boolean
}

/** The cross-table transactions. */
export interface Transactions {
  /** The spec's bind under the code's row lock; a conflict burns the code and stores `conflictEntry` with it. */
  bind(code: string, attempt: BindAttempt, at: Date, conflictEntry: (next: CodeRecord, conflict: BindConflict) => NewLogEntry): Promise<BindDecision<StoredCode>>
  /** Applies an action under the code's row lock; a change is stored with `entry` (and `next` carries the new version). */
  act(code: string, action: CodeAction, at: Date, entry: (next: CodeRecord) => NewLogEntry): Promise<ActionResult<StoredCode>>
  /** Revokes the user's live code (if any) under its row lock, stored with `entry`; the revoked record. */
  revokeLiveCodeOfUser(chatUserId: string, at: Date, entry: (live: StoredCode) => NewLogEntry): Promise<StoredCode | undefined>
  /**
   * Stores a log entry (idempotent per dedupe key) and, for a moderation entry naming a live code, the infraction of
   * that code's chat user, in one transaction; what the entry leaves out of the player is filled from the code's link.
   */
  storeLogEntry(entry: NewLogEntry): Promise<StoredLogEntry>
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
        let infraction = false
        if (e.category === 'moderation' && e.code != null) {
          const record = await findCode(tx, e.code)
          if (record !== undefined && record.state !== 'revoked') {
            await insertInfraction(tx, {
              logEntryId: id,
              code: record.code,
              chatUserId: record.chatUserId,
              platformUserId: e.platformUserId ?? record.platformUserId,
              platformUsername: e.platformUsername ?? record.platformUsername,
              eventType: e.eventType,
              description: e.description,
              issuedBy: e.issuedBy ?? null,
            })
            infraction = true
          }
        }
        return { entryId: id, created, infraction }
      }),
  }
}
