/**
 * Every change to codes goes through here, whoever asks (bind worker, CLI, chat commands): the pure domain
 * decides, MySQL stores under a row lock, then the Redis cache is written through after the commit.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import type { Kysely } from 'kysely'
import {
  applyAction,
  codeFromBytes,
  decideBind,
  type ActionResult,
  type BindAttempt,
  type BindStatus,
  type CodeAction,
  type CodeRecord,
} from '../domain/codes.js'
import { findCode, findLiveCodeOfUser, insertCode, updateCode, type StoredCode } from '../db/code-repository.js'
import { hasErrno, MysqlErrno } from '../db/database.js'
import { insertLogEntry } from '../db/log-repository.js'
import type { Database } from '../db/schema.js'
import type { CodeCache } from '../store/code-cache.js'

/** Who asked for a change, for the moderation trail. */
export interface Actor {
  source: string
  name?: string
}

/** Result of issuing a code. */
export type IssueResult = { code: StoredCode; created: boolean }

/** Result of a bind. */
export interface BindResult {
  status: BindStatus
  record: CodeRecord | null
}

/** The operations on codes. */
export interface CodeService {
  /** The user's live code, issuing one when there is none. */
  issue(chatUserId: string): Promise<IssueResult>
  /** Revokes the user's live code (if any) and issues a fresh one. */
  rotate(chatUserId: string, actor: Actor): Promise<{ previous: StoredCode | undefined; code: StoredCode }>
  /** One code. */
  show(code: string): Promise<StoredCode | undefined>
  /** The user's live code. */
  ofUser(chatUserId: string): Promise<StoredCode | undefined>
  /** Applies a staff or user action; a change is recorded in the moderation log. */
  act(code: string, action: CodeAction, actor: Actor): Promise<ActionResult>
  /** The spec's bind; a conflicting bind burns the code and writes a `bind_conflict` moderation entry. */
  bind(code: string, attempt: BindAttempt, actor: Actor): Promise<BindResult>
}

/** Dependencies, passed in so tests hand in the real database and cache. */
export interface CodeServiceDeps {
  db: Kysely<Database>
  cache: CodeCache
  random?: (size: number) => Uint8Array
  now?: () => Date
}

const ISSUE_ATTEMPTS = 20

/** Creates the service. */
export function createCodeService(deps: CodeServiceDeps): CodeService {
  const random = deps.random ?? ((n: number) => randomBytes(n))
  const now = deps.now ?? (() => new Date())
  const { db, cache } = deps

  const newCode = async (chatUserId: string): Promise<IssueResult> => {
    for (let attempt = 0; attempt < ISSUE_ATTEMPTS; attempt++) {
      const code = codeFromBytes(random(16))
      if (code === null) continue
      try {
        await insertCode(db, code, chatUserId, now())
        const stored = await findCode(db, code)
        if (stored === undefined) throw new Error(`code ${code} vanished after insert`)
        await cache.put(stored)
        return { code: stored, created: true }
      } catch (err) {
        if (!hasErrno(err, MysqlErrno.DuplicateEntry)) throw err
        // Either the random code exists, or another request just gave this user a live code: check the latter.
        const live = await findLiveCodeOfUser(db, chatUserId)
        if (live !== undefined) return { code: live, created: false }
      }
    }
    throw new Error(`could not find a free code in ${ISSUE_ATTEMPTS} attempts`)
  }

  const moderationEntry = (eventType: string, description: string, record: CodeRecord, actor: Actor, data?: unknown) => ({
    dedupeKey: `svc:${randomUUID()}`,
    category: 'moderation' as const,
    eventType,
    description,
    code: record.code,
    platformUserId: record.platformUserId,
    platformUsername: record.platformUsername,
    issuedBy: actor.name ?? actor.source,
    source: actor.source,
    data,
    receivedAt: now(),
  })

  return {
    async issue(chatUserId) {
      const live = await findLiveCodeOfUser(db, chatUserId)
      if (live !== undefined) return { code: live, created: false }
      return newCode(chatUserId)
    },

    async rotate(chatUserId, actor) {
      const previous = await db.transaction().execute(async (tx) => {
        const live = await findLiveCodeOfUser(tx, chatUserId, true)
        if (live === undefined) return undefined
        const revoked: CodeRecord = { ...live, state: 'revoked' }
        await updateCode(tx, revoked, now())
        await insertLogEntry(tx, moderationEntry('code_rotated', `Code ${live.code} was rotated and revoked`, live, actor))
        return { ...live, state: 'revoked' as const }
      })
      if (previous !== undefined) await cache.put(previous)
      const { code } = await newCode(chatUserId)
      return { previous, code }
    },

    show: (code) => findCode(db, code),
    ofUser: (chatUserId) => findLiveCodeOfUser(db, chatUserId),

    async act(code, action, actor) {
      const result = await db.transaction().execute(async (tx) => {
        const record = await findCode(tx, code, true)
        const outcome = applyAction(record, action)
        if (!outcome.ok || !outcome.changed) return outcome
        await updateCode(tx, outcome.next, now())
        await insertLogEntry(
          tx,
          moderationEntry(`code_${action}`, `Code ${code}: ${action} by ${actor.name ?? actor.source}`, outcome.next, actor),
        )
        return outcome
      })
      if (result.ok && result.changed) await cache.put(result.next)
      return result
    },

    async bind(code, attempt, actor) {
      const outcome = await db.transaction().execute(async (tx) => {
        const record = await findCode(tx, code, true)
        const decision = decideBind(record, attempt)
        if (decision.next !== null && decision.changed) {
          await updateCode(tx, decision.next, now(), decision.status === 'bound')
          if (decision.status === 'invalidated' && decision.conflict !== null) {
            const { boundTo, attempted } = decision.conflict
            await insertLogEntry(
              tx,
              moderationEntry(
                'bind_conflict',
                `Code ${code} is bound to ${boundTo.platformUsername} (${boundTo.platformUserId}); ` +
                  `${attempted.platformUsername} (${attempted.platformUserId}) tried to bind it. The code is now invalidated.`,
                decision.next,
                actor,
                { bound_to: boundTo, attempted },
              ),
            )
          }
        }
        return decision
      })
      if (outcome.next !== null && outcome.changed) await cache.put(outcome.next)
      return { status: outcome.status, record: outcome.next }
    },
  }
}
