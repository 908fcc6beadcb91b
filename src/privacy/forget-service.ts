/**
 * A chat user's erasure, whoever asks (`/forget` after its confirmation, `presence-link users forget --yes`): MySQL
 * first, in one transaction (mysql/privacy-rows.ts), then the Redis copies (each code's anonymous tombstone through
 * the code cache, which drops its holder entry, presence and share setting and announces it on the change feed),
 * then the push subscriptions naming the codes. A failure after the commit leaves only copies behind, which the
 * reconciler re-writes from MySQL (the tombstones) within about a second; push subscriptions lapse within
 * PUSH_SUBSCRIPTION_SECONDS, and a block published for an erased code says "Code not found".
 */
import { randomUUID } from 'node:crypto'
import type { PrivacyRows, StoredAboutUser } from '../mysql/privacy-rows.js'
import type { CodeCache } from '../redis/code-cache.js'
import type { PushSubscriptions } from '../redis/push-subscriptions.js'

/** Who asked, for the `data_erased` moderation entry (which names no chat user). */
export interface ErasureActor {
  /** `discord` or `cli`. */
  source: string
  /** The operator for the CLI; for Discord, nothing (naming the user would keep what was erased). */
  name?: string
}

/** What an erasure did. */
export interface Erasure {
  /** The codes the user held, now anonymous tombstones (unknown everywhere). */
  codes: string[]
  infractions: number
  namedEntries: number
  pushSubscriptions: number
}

/** The erasure's operations. */
export interface ForgetService {
  /** What is stored about the user that an erasure would change (changes nothing). */
  about(chatUserId: string): Promise<StoredAboutUser>
  /** Erases the user's data (see the header). */
  forget(chatUserId: string, actor: ErasureActor): Promise<Erasure>
}

/** Dependencies: the real rows, cache and subscriptions. */
export interface ForgetServiceDeps {
  rows: PrivacyRows
  cache: Pick<CodeCache, 'putMany' | 'dropHolder'>
  push: Pick<PushSubscriptions, 'forget'>
  now?: () => Date
}

/** Creates the service. */
export function createForgetService(deps: ForgetServiceDeps): ForgetService {
  const now = deps.now ?? (() => new Date())
  return {
    about: (chatUserId) => deps.rows.about(chatUserId),
    async forget(chatUserId, actor) {
      const erased = await deps.rows.erase(chatUserId, now(), (count) => ({
        dedupeKey: `svc:${randomUUID()}`,
        category: 'moderation',
        eventType: 'data_erased',
        description: `A chat user's data was erased on request (${count} code${count === 1 ? '' : 's'} retired and unlinked)`,
        issuedBy: actor.name ?? actor.source,
        source: actor.source,
        receivedAt: now(),
      }))
      // Should this write fail after the commit, the reconciler copies the tombstones within a second (changed_at).
      await deps.cache.putMany(erased.codes)
      const codes = erased.codes.map((c) => c.code)
      await deps.cache.dropHolder(chatUserId, codes)
      const pushSubscriptions = await deps.push.forget(codes)
      return { codes, infractions: erased.infractions, namedEntries: erased.namedEntries, pushSubscriptions }
    },
  }
}
