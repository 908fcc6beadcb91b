/**
 * The front's copy of the API keys (`{p}:apikeys`: key id -> `sha256hex|name|version`, a revoked key's tombstone
 * `|name|version`), written compare-and-set on the MySQL row version (scripts/api-key-put.lua): an older version never
 * overwrites a newer one, so a stale write cannot bring a revoked key back. A write that changed anything says so on
 * the change feed (`MS|keys`), which the fronts' key cache follows (api-key-cache.ts).
 */
import type { Redis } from 'ioredis'
import type { RedisKeys } from './keys.js'
import { luaCommand } from './lua-scripts.js'

/** A key as the copy holds it. */
export interface CopiedApiKey {
  id: string
  name: string
  secretHash: string
  /** MySQL row version. */
  version: number
  /** True for a revoked key: the copy keeps a tombstone. */
  revoked: boolean
}

/** The copy's operations. */
export interface ApiKeyCopy {
  /** Writes one key (active or revoked) unless the copy has this version or a newer one; true when written. */
  put(key: CopiedApiKey): Promise<boolean>
  /** `put` for many keys in one round trip; how many were written. */
  putMany(keys: readonly CopiedApiKey[]): Promise<number>
  /** The stored hash and name of an active key id; null when unknown or revoked. */
  get(id: string): Promise<{ secretHash: string; name: string } | null>
}

/** The stored value of a key (key names are letters, digits, `_ . -`: no `|`). */
export function encodeCopiedApiKey(key: CopiedApiKey): string {
  return `${key.revoked ? '' : key.secretHash}|${key.name}|${key.version}`
}

/** A stored value decoded: the hash ('' for a tombstone), name and version (0 for a value from before versions). */
export function decodeCopiedApiKey(value: string): { secretHash: string; name: string; version: number } {
  const [secretHash = '', name = '', version] = value.split('|')
  return { secretHash, name, version: version === undefined ? 0 : Number(version) }
}

/** Creates the copy over a Redis client. */
export function createApiKeyCopy(redis: Redis, keys: RedisKeys): ApiKeyCopy {
  const put = luaCommand(redis, 'api-key-put')
  const args = (all: readonly CopiedApiKey[]): string[] => all.flatMap((k) => [k.id, String(k.version), encodeCopiedApiKey(k)])
  return {
    async put(key) {
      return Number(await put([keys.apiKeys, keys.feed], [String(Date.now()), ...args([key])])) > 0
    },
    async putMany(all) {
      if (all.length === 0) return 0
      return Number(await put([keys.apiKeys, keys.feed], [String(Date.now()), ...args(all)]))
    },
    async get(id) {
      const stored = await redis.hget(keys.apiKeys, id)
      if (stored === null) return null
      const { secretHash, name } = decodeCopiedApiKey(stored)
      return secretHash === '' ? null : { secretHash, name }
    },
  }
}
