/**
 * Recent messages of whitelisted guilds (`{p}:msg:{id}`, JSON, TTL = MESSAGE_RETENTION_DAYS), so an edit or delete
 * can say what was there before, even after a gateway restart.
 */
import type { Redis } from 'ioredis'
import type { RedisKeys } from './keys.js'

/** What a stored message holds: content, author id, author name, channel id. */
export interface CachedMessage {
  c: string
  a: string
  n: string
  ch: string
}

/** The cache's operations. */
export interface MessageCache {
  /** Stores a message for `ttlSeconds`. */
  put(id: string, message: CachedMessage, ttlSeconds: number): Promise<void>
  /** A stored message; null when unknown or expired. */
  get(id: string): Promise<CachedMessage | null>
  /** Forgets messages. */
  remove(ids: readonly string[]): Promise<void>
}

/** Creates the cache over a Redis client. */
export function createMessageCache(redis: Redis, keys: RedisKeys): MessageCache {
  return {
    async put(id, message, ttlSeconds) {
      await redis.set(keys.message(id), JSON.stringify(message), 'EX', ttlSeconds)
    },
    async get(id) {
      const raw = await redis.get(keys.message(id))
      return raw === null ? null : (JSON.parse(raw) as CachedMessage)
    },
    async remove(ids) {
      if (ids.length > 0) await redis.del(...ids.map(keys.message))
    },
  }
}
