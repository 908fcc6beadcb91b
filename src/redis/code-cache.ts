/**
 * The Redis copy of code records (`{p}:codes`, `{p}:holders`), written compare-and-set on the MySQL row version
 * (scripts/code-put.lua: an older version never overwrites a newer one; revoked codes stay as tombstones), and rebuilt
 * from MySQL when missing. Every write that changes something announces its codes on the change feed (`{p}:feed`)
 * in the same script.
 */
import type { Redis } from 'ioredis'
import { encodeCachedCode, type VersionedCode } from '../codes/model/code-record.js'
import { encodeFeedAll, encodeFeedCodes } from './model/feed-message.js'
import type { RedisKeys } from './keys.js'
import { luaCommand } from './lua-scripts.js'
import { execAll } from './multi.js'

/** The cache's operations. */
export interface CodeCache {
  /** Stores a record read from or committed to MySQL, unless the copy already has this version or a newer one; true when something changed. */
  put(record: VersionedCode): Promise<boolean>
  /** `put` for many records in one round trip; how many changed. */
  putMany(records: readonly VersionedCode[]): Promise<number>
  /** Writes `pages` of records (every code, revoked ones too) compare-and-set, then marks the cache built; how many records. */
  rebuild(pages: AsyncIterable<VersionedCode[]>): Promise<number>
  /** True while the built marker is there (false: Redis restarted empty or was flushed). */
  isBuilt(): Promise<boolean>
  /**
   * Removes a chat user's holder entry while it still points at one of `codes` (an erasure: the codes' tombstones no
   * longer name the user, so code-put.lua cannot find the entry by them).
   */
  dropHolder(chatUserId: string, codes: readonly string[]): Promise<void>
  /** Rebuilds only when the built marker is missing (first start, or Redis lost its data). */
  ensureBuilt(pages: () => AsyncIterable<VersionedCode[]>): Promise<boolean>
}

const args = (records: readonly VersionedCode[]): string[] =>
  records.flatMap((r) => [r.code, String(r.version), r.chatUserId, encodeCachedCode(r), r.share ?? ''])

/** Creates the cache over a Redis client. */
export function createCodeCache(redis: Redis, keys: RedisKeys): CodeCache {
  const put = luaCommand(redis, 'code-put')
  const deleteIf = luaCommand(redis, 'hash-delete-if')
  const scriptKeys = [keys.codes, keys.holders, keys.presence, keys.share]
  const cache: CodeCache = {
    async put(record) {
      // The feed message goes out from inside the script: no crash can leave the write made and the fronts' views of it unannounced.
      return Number(await put(scriptKeys, [keys.feed, encodeFeedCodes([record.code], Date.now()), ...args([record])])) > 0
    },
    async putMany(records) {
      if (records.length === 0) return 0
      return Number(await put(scriptKeys, [keys.feed, encodeFeedCodes(records.map((r) => r.code), Date.now()), ...args(records)]))
    },
    async rebuild(pages) {
      // Compare-and-set per record rather than a rename over the whole hash: a command's write made while the rebuild
      // reads MySQL is newer than what the rebuild read, and must survive it.
      let count = 0
      for await (const page of pages) {
        if (page.length === 0) continue
        await put(scriptKeys, [keys.feed, '', ...args(page)])
        count += page.length
      }
      await execAll(redis.multi().set(keys.codesBuilt, new Date().toISOString()).publish(keys.feed, encodeFeedAll(Date.now())))
      return count
    },
    async dropHolder(chatUserId, codes) {
      for (const code of codes) await deleteIf([keys.holders], [chatUserId, code])
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
