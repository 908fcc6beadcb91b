/**
 * The Redis side of the copies of MySQL (`{p}:codes`, `{p}:holders`, `{p}:apikeys`) as the reconciler sees them: the
 * versions stored, pages of every entry, and the compare-and-set repairs (scripts/holder-repair.lua,
 * code-remove.lua, hash-delete-if.lua), each of which changes nothing when the entry changed since it was read.
 */
import type { Redis } from 'ioredis'
import { decodeCachedCode } from '../codes/model/code-record.js'
import type { VersionedApiKey } from '../mysql/api-key-rows.js'
import { createApiKeyCopy, decodeCopiedApiKey } from './api-key-copy.js'
import { createCodeCache, type CodeCache } from './code-cache.js'
import type { RedisKeys } from './keys.js'
import { luaCommand } from './lua-scripts.js'
import { encodeFeedCodes } from './model/feed-message.js'
import { readHolders } from './presence-store.js'

/** The copies' operations. */
export interface CopyStore {
  /** The code cache (rebuild, built marker, compare-and-set writes). */
  codes: CodeCache
  /** The stored version of each code (undefined when absent or unreadable). */
  codeVersions(codes: readonly string[]): Promise<Array<number | undefined>>
  /** The stored holder entry (user id to live code) of each of `users` that has one. */
  holders(users: readonly string[]): Promise<Map<string, string>>
  /** Points `userId`'s holder entry at `code` (or removes it for ''); 1 when it changed. */
  repairHolder(userId: string, code: string): Promise<number>
  /** Removes a code MySQL does not have, while it still holds `value`, announcing it on the feed; 1 when removed. */
  removeCode(code: string, value: string): Promise<number>
  /** Every code entry (code to stored value), `count` at a time. */
  codePages(count: number): AsyncIterable<Map<string, string>>
  /** Every holder's user id, `count` at a time. */
  holderPages(count: number): AsyncIterable<string[]>
  /** The stored version of each API key id (undefined when absent). */
  apiKeyVersions(ids: readonly string[]): Promise<Array<number | undefined>>
  /** Writes keys compare-and-set on their version; how many changed. */
  putApiKeys(keys: readonly VersionedApiKey[]): Promise<number>
  /** Every API key entry (id to stored value), `count` at a time. */
  apiKeyPages(count: number): AsyncIterable<Map<string, string>>
  /** Removes an API key entry while it still holds `value`; 1 when removed. */
  removeApiKey(id: string, value: string): Promise<number>
}

async function* hashPages(redis: Redis, key: string, count: number): AsyncIterable<Map<string, string>> {
  let cursor = '0'
  do {
    const [next, flat] = await redis.hscan(key, cursor, 'COUNT', count)
    cursor = next
    const page = new Map<string, string>()
    for (let i = 0; i < flat.length; i += 2) page.set(flat[i]!, flat[i + 1]!)
    yield page
  } while (cursor !== '0')
}

/** Creates the store over a Redis client. */
export function createCopyStore(redis: Redis, keys: RedisKeys): CopyStore {
  const codes = createCodeCache(redis, keys)
  const apiKeys = createApiKeyCopy(redis, keys)
  const repairHolder = luaCommand(redis, 'holder-repair')
  const removeCode = luaCommand(redis, 'code-remove')
  const deleteIf = luaCommand(redis, 'hash-delete-if')
  return {
    codes,
    async codeVersions(list) {
      if (list.length === 0) return []
      return (await redis.hmget(keys.codes, ...list)).map((v) => (v == null ? undefined : decodeCachedCode(v)?.version))
    },
    holders: (users) => readHolders(redis, keys, users),
    async repairHolder(userId, code) {
      return Number(await repairHolder([keys.codes, keys.holders], [userId, code]))
    },
    async removeCode(code, value) {
      const user = decodeCachedCode(value)?.chatUserId ?? ''
      return Number(await removeCode([keys.codes, keys.holders, keys.presence, keys.share], [keys.feed, encodeFeedCodes([code], Date.now()), code, value, user]))
    },
    codePages: (count) => hashPages(redis, keys.codes, count),
    async *holderPages(count) {
      for await (const page of hashPages(redis, keys.holders, count)) yield [...page.keys()]
    },
    async apiKeyVersions(ids) {
      if (ids.length === 0) return []
      return (await redis.hmget(keys.apiKeys, ...ids)).map((v) => (v == null ? undefined : decodeCopiedApiKey(v).version))
    },
    putApiKeys: (list) => apiKeys.putMany(list),
    apiKeyPages: (count) => hashPages(redis, keys.apiKeys, count),
    async removeApiKey(id, value) {
      return Number(await deleteIf([keys.apiKeys], [id, value]))
    },
  }
}
