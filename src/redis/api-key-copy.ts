/** The front's copy of the active API keys (`{p}:apikeys`: key id -> `sha256hex|name`), rewritten from MySQL at start. */
import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { RedisKeys } from './keys.js'

/** A key as the copy holds it. */
export interface CopiedApiKey {
  id: string
  name: string
  secretHash: string
}

/** The copy's operations. */
export interface ApiKeyCopy {
  /** Adds or replaces one key. */
  put(key: CopiedApiKey): Promise<void>
  /** Removes one key. */
  remove(id: string): Promise<void>
  /** The stored hash and name of a key id; null when unknown. */
  get(id: string): Promise<{ secretHash: string; name: string } | null>
  /** Replaces the whole copy atomically. */
  replace(keys: readonly CopiedApiKey[]): Promise<void>
}

/** Creates the copy over a Redis client. */
export function createApiKeyCopy(redis: Redis, keys: RedisKeys): ApiKeyCopy {
  return {
    async put(key) {
      await redis.hset(keys.apiKeys, key.id, `${key.secretHash}|${key.name}`)
    },
    async remove(id) {
      await redis.hdel(keys.apiKeys, id)
    },
    async get(id) {
      const stored = await redis.hget(keys.apiKeys, id)
      if (stored === null) return null
      const sep = stored.indexOf('|')
      return { secretHash: stored.slice(0, sep), name: stored.slice(sep + 1) }
    },
    async replace(all) {
      const tmp = keys.apiKeysSync(randomBytes(6).toString('hex'))
      const tx = redis.multi().del(tmp)
      if (all.length > 0) tx.hset(tmp, ...all.flatMap((k) => [k.id, `${k.secretHash}|${k.name}`])).rename(tmp, keys.apiKeys)
      else tx.del(keys.apiKeys, tmp)
      await tx.exec()
    },
  }
}
