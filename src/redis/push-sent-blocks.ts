/**
 * What each universe's servers were last told of (`{p}:push:sent:{universe}`: CODE -> digest of its callbacks block):
 * the publisher publishes a block only when it differs from this, and a publisher that takes a universe's lease over
 * carries on from it. Lost on purpose when Redis restarts empty: the next publisher takes the blocks it finds as told.
 */
import type { Redis } from 'ioredis'
import type { RedisKeys } from './keys.js'
import { execAll } from './multi.js'

/** The sent blocks' operations. */
export interface PushSentBlocks {
  /** The digests last recorded for `codes` (null where none), in order. */
  get(universe: number, codes: readonly string[]): Promise<Array<string | null>>
  /** Records digests; the hash lives `lifeMs` after this write. */
  set(universe: number, digests: ReadonlyMap<string, string>, lifeMs: number): Promise<void>
}

/** Creates the store over a Redis client. */
export function createPushSentBlocks(redis: Redis, keys: RedisKeys): PushSentBlocks {
  return {
    async get(universe, codes) {
      if (codes.length === 0) return []
      return redis.hmget(keys.pushSent(universe), ...codes)
    },
    async set(universe, digests, lifeMs) {
      if (digests.size === 0) return
      const key = keys.pushSent(universe)
      await execAll(redis.multi().hset(key, Object.fromEntries(digests)).pexpire(key, lifeMs))
    },
  }
}
