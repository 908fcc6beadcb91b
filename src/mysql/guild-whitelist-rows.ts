/** Every query on `guild_whitelist`: guilds whose audit events are logged (GUILD_WHITELIST adds to it in memory). */
import type { Kysely } from 'kysely'
import type { Database } from './schema.js'

/** A whitelisted guild with who added it. */
export interface WhitelistedGuild {
  guildId: string
  addedBy: string
  addedAt: Date
}

/** The whitelist rows. */
export interface GuildWhitelistRows {
  /** Adds a guild; false when it was already listed. */
  add(guildId: string, by: string): Promise<boolean>
  /** Removes a guild; false when it was not listed. */
  remove(guildId: string): Promise<boolean>
  /** Every listed guild, oldest first. */
  list(): Promise<WhitelistedGuild[]>
  /** Every listed guild id. */
  ids(): Promise<string[]>
}

/** Creates the rows over a database. */
export function createGuildWhitelistRows(db: Kysely<Database>): GuildWhitelistRows {
  return {
    async add(guildId, by) {
      const result = await db.insertInto('guild_whitelist').ignore().values({ guild_id: guildId, added_by: by }).executeTakeFirst()
      return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0
    },
    async remove(guildId) {
      const result = await db.deleteFrom('guild_whitelist').where('guild_id', '=', guildId).executeTakeFirst()
      return Number(result.numDeletedRows) > 0
    },
    async list() {
      const rows = await db.selectFrom('guild_whitelist').selectAll().orderBy('added_at').execute()
      return rows.map((r) => ({ guildId: r.guild_id, addedBy: r.added_by, addedAt: r.added_at }))
    },
    async ids() {
      const rows = await db.selectFrom('guild_whitelist').select('guild_id').execute()
      return rows.map((r) => r.guild_id)
    },
  }
}
