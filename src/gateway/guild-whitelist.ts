/** The guild whitelist: MySQL holds it, Redis holds the copy the gateway checks, GUILD_WHITELIST adds to it. */
import type { Redis } from 'ioredis'
import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import type { RedisKeys } from '../store/redis-keys.js'

/** Adds a guild; false when it was already listed. */
export async function addGuild(db: Kysely<Database>, redis: Redis, keys: RedisKeys, guildId: string, by: string): Promise<boolean> {
  const result = await db.insertInto('guild_whitelist').ignore().values({ guild_id: guildId, added_by: by }).executeTakeFirst()
  await redis.sadd(keys.guilds, guildId)
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0
}

/** Removes a guild; false when it was not listed. */
export async function removeGuild(db: Kysely<Database>, redis: Redis, keys: RedisKeys, guildId: string): Promise<boolean> {
  const result = await db.deleteFrom('guild_whitelist').where('guild_id', '=', guildId).executeTakeFirst()
  await redis.srem(keys.guilds, guildId)
  return Number(result.numDeletedRows) > 0
}

/** Every listed guild with who added it. */
export async function listGuilds(db: Kysely<Database>): Promise<Array<{ guildId: string; addedBy: string; addedAt: Date }>> {
  const rows = await db.selectFrom('guild_whitelist').selectAll().orderBy('added_at').execute()
  return rows.map((r) => ({ guildId: r.guild_id, addedBy: r.added_by, addedAt: r.added_at }))
}

/** Rewrites the Redis copy from MySQL. */
export async function syncGuilds(db: Kysely<Database>, redis: Redis, keys: RedisKeys): Promise<void> {
  const rows = await db.selectFrom('guild_whitelist').select('guild_id').execute()
  const tx = redis.multi().del(keys.guilds)
  if (rows.length > 0) tx.sadd(keys.guilds, ...rows.map((r) => r.guild_id))
  await tx.exec()
}

/** Answers whether a guild is whitelisted (environment list first, then Redis). */
export type IsWhitelisted = (guildId: string) => Promise<boolean>

/** Creates the check used on every audit event. */
export function createWhitelistCheck(redis: Redis, keys: RedisKeys, fromEnv: readonly string[]): IsWhitelisted {
  const env = new Set(fromEnv)
  return async (guildId) => env.has(guildId) || (await redis.sismember(keys.guilds, guildId)) === 1
}
