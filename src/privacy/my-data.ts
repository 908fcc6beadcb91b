/**
 * Reads what the service keeps about one chat user, for `/mydata` and `presence-link users show`: their codes from
 * MySQL, the live presence flag from Redis, the game keys that used their code (log entries of the last 24 h by key,
 * and push subscriptions naming it now), their infractions, and the deployment's retention settings. Public reads
 * (callbacks, rpc, streams) carry no key and are not recorded per code; the answer says so.
 */
import type { InfractionRows } from '../mysql/infraction-rows.js'
import type { PrivacyRows } from '../mysql/privacy-rows.js'
import { DEFAULT_SHARE } from '../presence/model/share.js'
import type { PresenceStore } from '../redis/presence-store.js'
import type { PushSubscriptions } from '../redis/push-subscriptions.js'
import type { KeyUse, MyData } from './model/my-data.js'

/** The window of `keyUses`. */
export const KEY_USE_WINDOW_HOURS = 24

/** What the reader needs. */
export interface MyDataDeps {
  rows: Pick<PrivacyRows, 'about' | 'keyUses' | 'keyNames'>
  infractions: Pick<InfractionRows, 'count' | 'list'>
  presence: Pick<PresenceStore, 'held'>
  push: Pick<PushSubscriptions, 'subscribersOf'>
  retention: MyData['retention']
  now?: () => Date
}

/** Reads a user's data; null when the service keeps nothing about them (no code ever, no infraction). */
export function createMyDataReader(deps: MyDataDeps): (chatUserId: string) => Promise<MyData | null> {
  const now = deps.now ?? (() => new Date())
  return async (chatUserId) => {
    const at = now()
    const about = await deps.rows.about(chatUserId)
    if (about.codes.length === 0 && about.infractions === 0) return null
    const live = about.codes.find((c) => c.state !== 'revoked') ?? null
    const all = about.codes.map((c) => c.code)
    const [logged, subscribers, latest, presenceHeld] = await Promise.all([
      deps.rows.keyUses(all, new Date(at.getTime() - KEY_USE_WINDOW_HOURS * 3_600_000)),
      live === null ? Promise.resolve(new Map<string, number>()) : deps.push.subscribersOf(live.code, at.getTime()),
      deps.infractions.list({ chatUserId, limit: 1 }),
      live === null ? Promise.resolve(false) : deps.presence.held(live.code),
    ])
    const names = await deps.rows.keyNames([...subscribers.keys()])
    const uses = new Map<string, KeyUse>(logged.map((l) => [l.key, { key: l.key, logEntries: l.entries, pushServers: 0 }]))
    for (const [id, servers] of subscribers) {
      const key = names.get(id) ?? id
      const use = uses.get(key) ?? { key, logEntries: 0, pushServers: 0 }
      use.pushServers += servers
      uses.set(key, use)
    }
    const newest = latest.infractions[0]
    return {
      chatUserId,
      code: live === null ? null : { ...live, share: live.share ?? DEFAULT_SHARE, createdAt: live.createdAt, boundAt: live.boundAt },
      retiredCodes: about.codes.filter((c) => c.state === 'revoked').map((c) => c.code).sort(),
      presenceHeld,
      keyUses: [...uses.values()].sort((a, b) => b.logEntries + b.pushServers - (a.logEntries + a.pushServers) || (a.key < b.key ? -1 : 1)),
      windowHours: KEY_USE_WINDOW_HOURS,
      infractions: {
        total: about.infractions,
        latest: newest === undefined ? null : { at: newest.createdAt, eventType: newest.eventType, description: newest.description, issuedBy: newest.issuedBy },
      },
      retention: deps.retention,
    }
  }
}
