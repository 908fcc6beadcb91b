/**
 * The presence hash and the holders it is keyed through: written by the gateway, read by callbacks and rpc through
 * the code lookup (code-lookup.ts). The gateway finds a user's code in `{p}:holders` and sweeps a shard's entries here.
 * Staleness rule: each gateway shard marks itself live in `{p}:presence:shards` (epoch ms, by Redis's clock, until
 * which its entries count) every few seconds; entries written by a shard whose mark has lapsed are served as no
 * activity. Marks are written by scripts/shard-mark.lua on Redis's clock, so no host's clock matters.
 */
import type { Redis } from 'ioredis'
import { encodeFeedAll, encodeFeedCodes } from './model/feed-message.js'
import { decodePresence, encodePresence, type PresenceEntry } from '../presence/model/presence-entry.js'
import { DEFAULT_SHARE, isShareSetting, type ShareSetting } from '../presence/model/share.js'
import type { RedisKeys } from './keys.js'
import { luaCommand } from './lua-scripts.js'
import { execAll } from './multi.js'

/** Write side of the presence hash, and the holder reads that key it. */
export interface PresenceStore {
  /** The live code of a chat user; null when they hold none. */
  codeOf(userId: string): Promise<string | null>
  /** The live codes of the given users who hold one, by user id. */
  codesOf(userIds: readonly string[]): Promise<Map<string, string>>
  /** The share setting of each given code (`everything` when it chose none), by code. */
  sharesOf(codes: readonly string[]): Promise<Map<string, ShareSetting>>
  /**
   * Sets or replaces the presence shown for a code (the live code of the user it belongs to), filtered under `share`
   * (default `everything`); nothing is written when the code's setting is not `share` (scripts/presence-put.lua).
   * True when written.
   */
  set(code: string, entry: PresenceEntry, share?: ShareSetting): Promise<boolean>
  /** Sets many at once (a resync), each under the same rule as `set`. */
  setMany(entries: ReadonlyArray<readonly [code: string, entry: PresenceEntry, share?: ShareSetting]>): Promise<void>
  /** Removes a code's presence (its user went offline or left every shared guild). */
  clear(code: string): Promise<void>
  /**
   * Extends a shard's mark to `leaseMs` from now (Redis's clock) while it is still valid; false, writing nothing, when
   * it has lapsed or is missing (the shard must resync, then `markLive`).
   */
  renewMark(shard: number, leaseMs: number): Promise<boolean>
  /** Marks a shard live for `leaseMs` from now (Redis's clock), whatever its mark was (after a resync). */
  markLive(shard: number, leaseMs: number): Promise<void>
  /** Marks a shard dead at once (clean shutdown). */
  markDead(shard: number): Promise<void>
  /** Whether a presence is stored for `code`. */
  held(code: string): Promise<boolean>
  /** Number of codes with a stored presence. */
  size(): Promise<number>
  /** Removes the entries written by `shard` whose code `keep` refuses (asked as each page is read); returns how many. */
  sweepShard(shard: number, keep: (code: string) => boolean): Promise<number>
}

/** The live code of each of `userIds` that holds one, by user id (one HMGET of `{p}:holders`). */
export async function readHolders(redis: Pick<Redis, 'hmget'>, keys: Pick<RedisKeys, 'holders'>, userIds: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  if (userIds.length === 0) return out
  const codes = await redis.hmget(keys.holders, ...userIds)
  userIds.forEach((id, i) => {
    const code = codes[i]
    if (code != null) out.set(id, code)
  })
  return out
}

/** Creates the store over a Redis client. */
export function createPresenceStore(redis: Redis, keys: RedisKeys): PresenceStore {
  const mark = luaCommand(redis, 'shard-mark')
  const put = luaCommand(redis, 'presence-put')
  return {
    codeOf: (userId) => redis.hget(keys.holders, userId),
    codesOf: (userIds) => readHolders(redis, keys, userIds),
    async sharesOf(codes) {
      const out = new Map<string, ShareSetting>()
      if (codes.length === 0) return out
      const values = await redis.hmget(keys.share, ...codes)
      codes.forEach((code, i) => {
        const value = values[i]
        out.set(code, isShareSetting(value) ? value : DEFAULT_SHARE)
      })
      return out
    },
    async set(code, entry, share) {
      return Number(await put([keys.presence, keys.share, keys.codes], [keys.feed, Date.now(), code, share ?? DEFAULT_SHARE, encodePresence(entry)])) > 0
    },
    async setMany(entries) {
      if (entries.length === 0) return
      await put([keys.presence, keys.share, keys.codes], [keys.feed, Date.now(), ...entries.flatMap(([code, entry, share]) => [code, share ?? DEFAULT_SHARE, encodePresence(entry)])])
    },
    async clear(code) {
      await execAll(redis.multi().hdel(keys.presence, code).publish(keys.feed, encodeFeedCodes([code], Date.now())))
    },
    async renewMark(shard, leaseMs) {
      return Number(await mark([keys.presenceShards], [shard, leaseMs, 'renew'])) > 0
    },
    async markLive(shard, leaseMs) {
      await mark([keys.presenceShards], [shard, leaseMs, 'set'])
    },
    async markDead(shard) {
      // Which codes the shard wrote is not known here without a scan; fronts drop everything (a rare event).
      await execAll(redis.multi().hdel(keys.presenceShards, String(shard)).publish(keys.feed, encodeFeedAll(Date.now())))
    },
    async held(code) {
      return (await redis.hexists(keys.presence, code)) === 1
    },
    async size() {
      return redis.hlen(keys.presence)
    },
    async sweepShard(shard, keep) {
      let removed = 0
      let cursor = '0'
      do {
        const [next, flat] = await redis.hscan(keys.presence, cursor, 'COUNT', 1000)
        cursor = next
        const stale: string[] = []
        for (let i = 0; i < flat.length; i += 2) {
          const entry = decodePresence(flat[i + 1]!)
          if (entry?.shard === shard && !keep(flat[i]!)) stale.push(flat[i]!)
        }
        if (stale.length > 0) {
          const [deleted] = await execAll(redis.multi().hdel(keys.presence, ...stale).publish(keys.feed, encodeFeedCodes(stale, Date.now())))
          removed += Number(deleted)
        }
      } while (cursor !== '0')
      return removed
    },
  }
}
