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
  let last = 0n
  const nowPart = (): bigint => BigInt(Math.floor(now())) - DISCORD_EPOCH
  return {
    next() {
      const candidate = nowPart() << 22n
      last = candidate > last ? candidate : last + 1n
      return last.toString()
    },
    nextOnShard(shard, shardCount) {
      const count = BigInt(shardCount)
      const lastTs = last >> 22n
      let ts = nowPart() > lastTs ? nowPart() : lastTs + 1n
      // The shard is chosen by the timestamp part alone, so step the millisecond until it matches.
      while (ts % count !== BigInt(shard)) ts += 1n
      last = ts << 22n
      return last.toString()
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
