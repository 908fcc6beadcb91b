/**
 * Every change to codes goes through here, whoever asks (bind worker, CLI, chat commands): issuance from random
 * bytes, the moderation trail of each change, and the write-through to the Redis cache after the MySQL commit. The
 * transitions themselves run in the mysql room (mysql/transactions.ts) under the code's row lock. The cache write is
 * compare-and-set on the row version, and every path that finds nothing to change in MySQL ("already banned", "no
 * code") still re-writes the copy from MySQL: a first attempt may have committed MySQL and then failed to reach Redis.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { codeFromBytes, type ActionResult, type BindAttempt, type BindStatus, type CodeAction, type CodeRecord } from './model/codes.js'
import type { CodeRows, StoredCode } from '../mysql/code-rows.js'
import type { NewLogEntry } from '../mysql/log-entry-rows.js'
import type { ShareChange, Transactions } from '../mysql/transactions.js'
import type { ShareSetting } from '../presence/model/share.js'
import type { CodeCache } from '../redis/code-cache.js'

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
  act(code: string, action: CodeAction, actor: Actor): Promise<ActionResult<StoredCode>>
  /** The spec's bind; a conflicting bind burns the code and writes a `bind_conflict` moderation entry. */
  bind(code: string, attempt: BindAttempt, actor: Actor): Promise<BindResult>
  /** Sets what games see of the user's activity (`/share`); the copy is written (and the presence dropped) on a change. */
  setShare(chatUserId: string, share: ShareSetting): Promise<ShareChange>
  /** Re-writes a code's Redis copy from MySQL (compare-and-set); a command that found nothing to change calls it. */
  refresh(code: string): Promise<void>
  /** Re-writes the copy of every code the user ever held (a "you have no code" answer may follow a half-done revoke). */
  refreshUser(chatUserId: string): Promise<void>
}

/** Dependencies, passed in so tests hand in the real database and cache. */
export interface CodeServiceDeps {
  rows: CodeRows
  transactions: Pick<Transactions, 'bind' | 'act' | 'revokeLiveCodeOfUser' | 'setShare'>
  cache: CodeCache
  random?: (size: number) => Uint8Array
  now?: () => Date
}

const ISSUE_ATTEMPTS = 20

/** Creates the service. */
export function createCodeService(deps: CodeServiceDeps): CodeService {
  const random = deps.random ?? ((n: number) => randomBytes(n))
  const now = deps.now ?? (() => new Date())
  const { rows, transactions, cache } = deps

  const newCode = async (chatUserId: string): Promise<IssueResult> => {
    for (let attempt = 0; attempt < ISSUE_ATTEMPTS; attempt++) {
      const code = codeFromBytes(random(16))
      if (code === null) continue
      if ((await rows.insert(code, chatUserId, now())) === 'inserted') {
        const stored = await rows.find(code)
        if (stored === undefined) throw new Error(`code ${code} vanished after insert`)
        await cache.put(stored)
        return { code: stored, created: true }
      }
      // Either the random code exists, or another request just gave this user a live code: check the latter.
      const live = await rows.findLiveOfUser(chatUserId)
      if (live !== undefined) {
        await cache.put(live)
        return { code: live, created: false }
      }
    }
    throw new Error(`could not find a free code in ${ISSUE_ATTEMPTS} attempts`)
  }

  const moderationEntry = (eventType: string, description: string, record: CodeRecord, actor: Actor, data?: unknown): NewLogEntry => ({
    dedupeKey: `svc:${randomUUID()}`,
    category: 'moderation',
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

  const refresh = async (code: string): Promise<void> => {
    const stored = await rows.find(code)
    if (stored !== undefined) await cache.put(stored)
  }

  const refreshUser = async (chatUserId: string): Promise<void> => {
    await cache.putMany(await rows.ofUser(chatUserId))
  }

  return {
    async issue(chatUserId) {
      const live = await rows.findLiveOfUser(chatUserId)
      if (live === undefined) return newCode(chatUserId)
      // A retried issue whose first attempt inserted the code but did not reach Redis.
      await cache.put(live)
      return { code: live, created: false }
    },

    async rotate(chatUserId, actor) {
      const previous = await transactions.revokeLiveCodeOfUser(chatUserId, now(), (live) =>
        moderationEntry('code_rotated', `Code ${live.code} was rotated and revoked`, live, actor),
      )
      if (previous !== undefined) await cache.put(previous)
      else await refreshUser(chatUserId)
      const { code } = await newCode(chatUserId)
      // The user's choice of what games see is theirs, not the code's: it follows them to the new code.
      if (previous?.share !== undefined && previous.share !== code.share) {
        const change = await transactions.setShare(chatUserId, previous.share, now())
        if (change.outcome !== 'no_code') {
          await cache.put(change.next)
          return { previous, code: change.next }
        }
      }
      return { previous, code }
    },

    show: (code) => rows.find(code),
    ofUser: (chatUserId) => rows.findLiveOfUser(chatUserId),

    async act(code, action, actor) {
      const result = await transactions.act(code, action, now(), (next) =>
        moderationEntry(`code_${action}`, `Code ${code}: ${action} by ${actor.name ?? actor.source}`, next, actor),
      )
      if (result.ok && result.changed) await cache.put(result.next)
      else await refresh(code)
      return result
    },

    async bind(code, attempt, actor) {
      const decision = await transactions.bind(code, attempt, now(), (next, { boundTo, attempted }) =>
        moderationEntry(
          'bind_conflict',
          `Code ${code} is bound to ${boundTo.platformUsername} (${boundTo.platformUserId}); ` +
            `${attempted.platformUsername} (${attempted.platformUserId}) tried to bind it. The code is now invalidated.`,
          next,
          actor,
          { bound_to: boundTo, attempted },
        ),
      )
      if (decision.next !== null) await cache.put(decision.next)
      else await refresh(code)
      return { status: decision.status, record: decision.next }
    },

    async setShare(chatUserId, share) {
      const change = await transactions.setShare(chatUserId, share, now())
      if (change.outcome === 'no_code') await refreshUser(chatUserId)
      else await cache.put(change.next)
      return change
    },

    refresh,
    refreshUser,
  }
}
