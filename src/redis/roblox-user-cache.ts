/** Roblox username resolutions (`{p}:roblox:user:{lowercase name}` = `id|name`, 24 h TTL), read and written by the bind worker. */
import type { Redis } from 'ioredis'
import type { RedisKeys } from './keys.js'

/** A resolved Roblox user. */
export interface CachedRobloxUser {
  id: string
  name: string
}

/** The cache's operations. */
export interface RobloxUserCache {
  /** The cached resolution of a username (any case); null when unknown. */
  get(username: string): Promise<CachedRobloxUser | null>
  /** Caches a resolution for `ttlSeconds`. */
  put(username: string, user: CachedRobloxUser, ttlSeconds: number): Promise<void>
}

/** Creates the cache over a Redis client. */
export function createRobloxUserCache(redis: Redis, keys: RedisKeys): RobloxUserCache {
  return {
    async get(username) {
      const cached = await redis.get(keys.robloxUser(username))
      if (cached === null) return null
      const [id, name] = cached.split('|')
      return id !== undefined && name !== undefined ? { id, name } : null
    },
    async put(username, user, ttlSeconds) {
      await redis.set(keys.robloxUser(username), `${user.id}|${user.name}`, 'EX', ttlSeconds)
    },
  }
}
