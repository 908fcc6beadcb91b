/**
 * The presence hash: written by the gateway, read by callbacks and rpc through the code lookup script.
 * Staleness rule: each gateway shard marks itself live in `{p}:presence:shards` (epoch ms until which its
 * entries count) every few seconds; entries written by a shard whose mark has lapsed are served as no activity.
 */
import type { Redis } from 'ioredis'
import { encodePresence, type PresenceEntry } from './presence-entry.js'
import type { RedisKeys } from './redis-keys.js'

/** Write side of the presence hash. */
export interface PresenceStore {
  /** Sets or replaces the presence shown for a code (the live code of the user it belongs to). */
  set(code: string, entry: PresenceEntry): Promise<void>
  /** Sets many at once (a resync). */
  setMany(entries: ReadonlyArray<readonly [code: string, entry: PresenceEntry]>): Promise<void>
  /** Removes a code's presence (its user went offline or left every shared guild). */
  clear(code: string): Promise<void>
  /** Marks a shard live until `untilMs` (epoch ms). */
  heartbeat(shard: number, untilMs: number): Promise<void>
  /** Marks a shard dead at once (clean shutdown). */
  markDead(shard: number): Promise<void>
  /** Number of codes with a stored presence. */
  size(): Promise<number>
}

/** Creates the store over a Redis client. */
export function createPresenceStore(redis: Redis, keys: RedisKeys): PresenceStore {
  return {
    async set(code, entry) {
      await redis.hset(keys.presence, code, encodePresence(entry))
    },
    async setMany(entries) {
      if (entries.length === 0) return
      const args: string[] = []
      for (const [code, entry] of entries) args.push(code, encodePresence(entry))
      await redis.hset(keys.presence, ...args)
    },
    async clear(code) {
      await redis.hdel(keys.presence, code)
    },
    async heartbeat(shard, untilMs) {
      await redis.hset(keys.presenceShards, String(shard), String(untilMs))
    },
    async markDead(shard) {
      await redis.hdel(keys.presenceShards, String(shard))
    },
    async size() {
      return redis.hlen(keys.presence)
    },
  }
}
