/** The guild whitelist: MySQL holds it (guild-whitelist-rows.ts), Redis holds the copy the gateway checks (guild-set.ts), GUILD_WHITELIST adds to it. */
import type { GuildWhitelistRows, WhitelistedGuild } from '../mysql/guild-whitelist-rows.js'
import type { GuildSet } from '../redis/guild-set.js'

/** Answers whether a guild is whitelisted (environment list first, then Redis). */
export type IsWhitelisted = (guildId: string) => Promise<boolean>

/** The whitelist's operations (CLI and gateway). */
export interface GuildWhitelist {
  /** Adds a guild; false when it was already listed. */
  add(guildId: string, by: string): Promise<boolean>
  /** Removes a guild; false when it was not listed. */
  remove(guildId: string): Promise<boolean>
  /** Every stored guild with who added it. */
  list(): Promise<WhitelistedGuild[]>
  /** Rewrites the Redis copy from MySQL. */
  sync(): Promise<void>
  /** The check used on every audit event. */
  isWhitelisted: IsWhitelisted
}

/** Creates the whitelist over its rows and its Redis copy; `fromEnv` is GUILD_WHITELIST. */
export function createGuildWhitelist(deps: { rows: GuildWhitelistRows; set: GuildSet; fromEnv: readonly string[] }): GuildWhitelist {
  const { rows, set } = deps
  const env = new Set(deps.fromEnv)
  return {
    async add(guildId, by) {
      const added = await rows.add(guildId, by)
      await set.add(guildId)
      return added
    },
    async remove(guildId) {
      const removed = await rows.remove(guildId)
      await set.remove(guildId)
      return removed
    },
    list: () => rows.list(),
    async sync() {
      await set.replace(await rows.ids())
    },
    isWhitelisted: async (guildId) => env.has(guildId) || (await set.has(guildId)),
  }
}
