/**
 * Write-through cache of code records in Redis (`{p}:codes`, `{p}:holders`), rebuilt from MySQL when missing. Every
 * write announces itself on the change feed (`{p}:feed`) in the same MULTI.
 */
import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import { encodeCachedCode } from '../core/code-record.js'
import { encodeFeedAll, encodeFeedCodes } from '../core/feed-message.js'
import type { CodeRecord } from '../core/codes.js'
import type { RedisKeys } from './keys.js'
import { execAll } from './multi.js'
import { luaSource } from './lua-scripts.js'

/** The cache's operations. */
export interface CodeCache {
  /** Stores a record after its MySQL commit (a revoked record is removed). */
  put(record: CodeRecord): Promise<void>
  /** Replaces the whole cache with `pages` of live records, atomically per key. */
  rebuild(pages: AsyncIterable<CodeRecord[]>): Promise<number>
  /** True while the built marker is there (false: Redis restarted empty or was flushed). */
  isBuilt(): Promise<boolean>
  /** Rebuilds only when the built marker is missing (first start, or Redis lost its data). */
  ensureBuilt(pages: () => AsyncIterable<CodeRecord[]>): Promise<boolean>
}

/** Creates the cache over a Redis client. */
export function createCodeCache(redis: Redis, keys: RedisKeys): CodeCache {
  const cache: CodeCache = {
    async put(record) {
      const tx = redis.multi()
      if (record.state === 'revoked') {
        tx.hdel(keys.codes, record.code)
        tx.hdel(keys.presence, record.code)
        tx.eval(luaSource('drop-holder'), 1, keys.holders, record.chatUserId, record.code)
      } else {
        tx.hset(keys.codes, record.code, encodeCachedCode(record))
        tx.hset(keys.holders, record.chatUserId, record.code)
      }
      // In the same MULTI as the write: no crash can leave the write made and the fronts' views of it unannounced.
      tx.publish(keys.feed, encodeFeedCodes([record.code], Date.now()))
      await execAll(tx)
    },
    async rebuild(pages) {
      // Per-run names: two processes rebuilding at once must not write into each other's half-built copy.
      const run = randomBytes(6).toString('hex')
      const tmpCodes = keys.codesRebuild(run)
      const tmpHolders = keys.holdersRebuild(run)
      await redis.del(tmpCodes, tmpHolders)
      let count = 0
      for await (const page of pages) {
        if (page.length === 0) continue
        const codes: string[] = []
        const holders: string[] = []
        for (const r of page) {
          codes.push(r.code, encodeCachedCode(r))
          holders.push(r.chatUserId, r.code)
        }
        await execAll(redis.multi().hset(tmpCodes, ...codes).hset(tmpHolders, ...holders))
        count += page.length
      }
      const tx = redis.multi()
      if (count === 0) tx.del(keys.codes, keys.holders, tmpCodes, tmpHolders)
      else tx.rename(tmpCodes, keys.codes).rename(tmpHolders, keys.holders)
      tx.set(keys.codesBuilt, new Date().toISOString())
      tx.publish(keys.feed, encodeFeedAll(Date.now()))
      await execAll(tx)
      return count
    },
    async isBuilt() {
      return (await redis.exists(keys.codesBuilt)) === 1
    },
    async ensureBuilt(pages) {
      if (await cache.isBuilt()) return false
      await cache.rebuild(pages())
      return true
    },
  }
  return cache
}
