/**
 * The GUILD_WHITELIST a gateway runs with, published to Redis (`{p}:guilds:env`) at its start. The gateway holds that
 * list only in memory, and the CLI's own environment may differ from it (serve adds the sandbox's guild to its parts'
 * GUILD_WHITELIST only), so `presence-link guilds list` reads this record to show what the gateway really checks.
 */
import type { Redis } from 'ioredis'
import type { RedisKeys } from './keys.js'

/** A gateway's GUILD_WHITELIST and which gateway published it when. */
export interface PublishedGuildWhitelist {
  /** The gateway's GUILD_WHITELIST, in its order. */
  guilds: string[]
  /** The gateway's SHARD_IDS. */
  shards: number[]
  /** Its SHARD_COUNT. */
  shardCount: number
  /** When that gateway started with it. */
  at: Date
}

/** Reads a stored record; undefined when it is not one (written by a version that shaped it differently). */
export function parsePublishedWhitelist(text: string): PublishedGuildWhitelist | undefined {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    return undefined
  }
  const r = raw as { guilds?: unknown; shards?: unknown; shardCount?: unknown; at?: unknown } | null
  if (r === null || typeof r !== 'object') return undefined
  if (!Array.isArray(r.guilds) || !r.guilds.every((g) => typeof g === 'string')) return undefined
  if (!Array.isArray(r.shards) || !r.shards.every((s) => Number.isInteger(s))) return undefined
  if (!Number.isInteger(r.shardCount) || typeof r.at !== 'string' || Number.isNaN(Date.parse(r.at))) return undefined
  return { guilds: r.guilds as string[], shards: r.shards as number[], shardCount: r.shardCount as number, at: new Date(r.at) }
}

/** Publishes a gateway's list; the last gateway to start wins (every gateway of a deployment shares its configuration). */
export async function publishGatewayWhitelist(redis: Redis, keys: RedisKeys, record: PublishedGuildWhitelist): Promise<void> {
  await redis.set(keys.guildsFromEnv, JSON.stringify({ ...record, at: record.at.toISOString() }))
}

/** The published list; undefined when no gateway has published one under this prefix. */
export async function readGatewayWhitelist(redis: Redis, keys: RedisKeys): Promise<PublishedGuildWhitelist | undefined> {
  const text = await redis.get(keys.guildsFromEnv)
  return text === null ? undefined : parsePublishedWhitelist(text)
}
