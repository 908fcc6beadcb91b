/*
 * Snowflake ids for everything the fake Discord creates (guilds, channels, roles, messages, webhooks, interactions).
 * @sapphire/snowflake (what discord.js itself uses) packs them with Discord's epoch. Two rules stay ours, because
 * sapphire takes the clock as given: ids keep increasing when the clock stands still or goes back, and a guild id can
 * be steered to a shard, since discord.js routes a guild to shard `(id >> 22) % shardCount`.
 */
import { MaximumIncrement, Snowflake } from '@sapphire/snowflake'

/** Discord's epoch (2015-01-01T00:00:00Z) in milliseconds; snowflake timestamps count from it. */
export const DISCORD_EPOCH = 1420070400000n

/** Issues unique, strictly increasing snowflake ids. */
export interface Snowflakes {
  /** A fresh id for "now". */
  next(): string
  /** A fresh id whose guild routing `(id >> 22) % shardCount` lands on `shard`. */
  nextOnShard(shard: number, shardCount: number): string
}

/** Creates a snowflake issuer reading time from `now` (milliseconds since the Unix epoch). */
export function createSnowflakes(now: () => number): Snowflakes {
  const generator = new Snowflake(DISCORD_EPOCH)
  let lastMs = -1n
  let increment = 0n
  const nowMs = (): bigint => BigInt(Math.floor(now())) - DISCORD_EPOCH
  // Worker and process ids are 0, so the first id of a millisecond is exactly `ms << 22`.
  const issue = (): string =>
    generator.generate({ timestamp: lastMs + DISCORD_EPOCH, increment, workerId: 0n, processId: 0n }).toString()
  return {
    next() {
      const ms = nowMs()
      if (ms > lastMs) {
        lastMs = ms
        increment = 0n
      } else if (increment < MaximumIncrement) {
        increment += 1n
      } else {
        lastMs += 1n
        increment = 0n
      }
      return issue()
    },
    nextOnShard(shard, shardCount) {
      const count = BigInt(shardCount)
      const ms = nowMs()
      let ts = ms > lastMs ? ms : lastMs + 1n
      // The shard is chosen by the timestamp part alone, so step the millisecond until it matches.
      while (ts % count !== BigInt(shard)) ts += 1n
      lastMs = ts
      increment = 0n
      return issue()
    },
  }
}

/** The shard that owns a guild, as Discord routes it: `(guild_id >> 22) % shard_count`. */
export function shardForGuild(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount))
}

/** True when the string is a plausible snowflake (1 to 20 digits). */
export function isSnowflake(value: unknown): value is string {
  return typeof value === 'string' && /^\d{1,20}$/.test(value)
}
