/**
 * Push subscriptions in Redis (`{p}:push:subs:{universe}`, `{p}:push:universes`; src/redis/keys.ts): the front
 * replaces one server's subscription per call (scripts/push-subscribe.lua), the publisher reads a universe's live ones
 * and lists the universes that have any, both by Redis's clock (scripts/push-subscriptions-read.lua,
 * push-universes.lua). Lost on purpose when Redis restarts empty: servers renew theirs within PUSH_SUBSCRIPTION_SECONDS.
 */
import type { Redis } from 'ioredis'
import { decodeSubscription, encodeSubscriptionCodes, subscriptionField, type ServerSubscription } from './model/push-subscription.js'
import type { RedisKeys } from './keys.js'
import { luaCommand } from './lua-scripts.js'

/** The subscriptions' operations. */
export interface PushSubscriptions {
  /** Replaces a server's subscription (an empty `codes` ends it); the expiry in epoch ms by Redis's clock (0 when ended). */
  subscribe(keyId: string, universe: number, serverId: string, codes: readonly string[], lifeMs: number): Promise<number>
  /** A universe's live subscriptions (lapsed ones are removed), with Redis's time of the read. */
  read(universe: number): Promise<{ nowMs: number; subscriptions: ServerSubscription[] }>
  /** The universes with a live subscription. */
  universes(): Promise<number[]>
  /**
   * Takes erased codes out of every universe's subscriptions (lapsed ones too) and sent blocks
   * (scripts/push-forget.lua); how many subscriptions named one of them.
   */
  forget(codes: readonly string[]): Promise<number>
  /** How many live servers subscribe to `code`'s pushes, per API key id (every universe; expiry by this host's clock). */
  subscribersOf(code: string, nowMs: number): Promise<Map<string, number>>
}

/** Creates the subscriptions over a Redis client. */
export function createPushSubscriptions(redis: Redis, keys: RedisKeys): PushSubscriptions {
  const subscribe = luaCommand(redis, 'push-subscribe')
  const read = luaCommand(redis, 'push-subscriptions-read')
  const universes = luaCommand(redis, 'push-universes')
  const forget = luaCommand(redis, 'push-forget')
  return {
    async subscribe(keyId, universe, serverId, codes, lifeMs) {
      const field = subscriptionField(keyId, serverId)
      return Number(await subscribe([keys.pushSubscriptions(universe), keys.pushUniverses], [field, lifeMs, universe, encodeSubscriptionCodes(codes)]))
    },
    async read(universe) {
      const flat = (await read([keys.pushSubscriptions(universe)], [])) as Array<string | number>
      const subscriptions: ServerSubscription[] = []
      for (let i = 1; i + 1 < flat.length; i += 2) {
        const decoded = decodeSubscription(String(flat[i]), String(flat[i + 1]))
        if (decoded !== null) subscriptions.push(decoded)
      }
      return { nowMs: Number(flat[0]), subscriptions }
    },
    async universes() {
      const ids = (await universes([keys.pushUniverses], [])) as string[]
      return ids.map(Number).filter((id) => Number.isSafeInteger(id) && id > 0)
    },
    async subscribersOf(code, nowMs) {
      const out = new Map<string, number>()
      for (const universe of await redis.zrange(keys.pushUniverses, '0', '-1')) {
        const all = await redis.hgetall(keys.pushSubscriptions(Number(universe)))
        for (const [field, value] of Object.entries(all)) {
          const decoded = decodeSubscription(field, value)
          if (decoded === null || decoded.expiresAtMs <= nowMs || !decoded.codes.includes(code)) continue
          out.set(decoded.keyId, (out.get(decoded.keyId) ?? 0) + 1)
        }
      }
      return out
    },
    async forget(codes) {
      if (codes.length === 0) return 0
      let changed = 0
      for (const universe of await redis.zrange(keys.pushUniverses, '0', '-1')) {
        changed += Number(await forget([keys.pushSubscriptions(Number(universe)), keys.pushSent(Number(universe))], [...codes]))
      }
      return changed
    },
  }
}
