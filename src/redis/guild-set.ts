/** The gateway's copy of the guild whitelist (`{p}:guilds`, a set of guild ids), rewritten from MySQL at gateway start. */
import type { Redis } from 'ioredis'
import type { RedisKeys } from './keys.js'

/** The set's operations. */
export interface GuildSet {
  /** Adds a guild id. */
  add(guildId: string): Promise<void>
  /** Removes a guild id. */
  remove(guildId: string): Promise<void>
  /** True when the guild id is in the set. */
  has(guildId: string): Promise<boolean>
  /** Every guild id in the set. */
  members(): Promise<string[]>
  /** Replaces the whole set. */
  replace(guildIds: readonly string[]): Promise<void>
}

/** Creates the set over a Redis client. */
export function createGuildSet(redis: Redis, keys: RedisKeys): GuildSet {
  return {
    async add(guildId) {
      await redis.sadd(keys.guilds, guildId)
    },
    async remove(guildId) {
      await redis.srem(keys.guilds, guildId)
    },
    async has(guildId) {
      return (await redis.sismember(keys.guilds, guildId)) === 1
    },
    members: () => redis.smembers(keys.guilds),
    async replace(guildIds) {
      const tx = redis.multi().del(keys.guilds)
      if (guildIds.length > 0) tx.sadd(keys.guilds, ...guildIds)
      await tx.exec()
    },
  }
}
