/** Redis memory per linked user: growth of the code, holder and presence hashes (and of used_memory) over N more linked users. */
import type { Redis } from 'ioredis'
import type { PresenceEntry } from '../../../src/presence/model/presence-entry.js'
import type { BenchEnv } from './bench-env.js'
import { pool } from '../../harness/pool.js'
import { presenceOf } from './linked-users.js'

/** Bytes per linked user, two ways, and the hashes' encodings. */
export interface MemoryResult {
  users: number
  keyBytesPerUser: number
  usedMemoryPerUser: number
  encodings: string
}

async function memoryUsage(redis: Redis, key: string): Promise<number> {
  return Number((await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0)
}

async function usedMemory(redis: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? Number.NaN)
}

/** Links `users` more users through the code service, each with a rendered presence, and measures what Redis grew by. */
export async function redisBytesPerUser(env: BenchEnv, users: number): Promise<MemoryResult> {
  const { redis, ctx, config } = env.scratch
  const keys = [ctx.keys.codes, ctx.keys.holders, ctx.keys.presence]
  const sum = async () => (await Promise.all(keys.map((k) => memoryUsage(redis, k)))).reduce((a, b) => a + b, 0)
  const beforeKeys = await sum()
  const beforeUsed = await usedMemory(redis)
  const base = 400_000_000_000_000_000n
  const entries = await pool([...Array(users).keys()], 8, async (i) => {
    const chatUser = String(base + BigInt(i))
    const { code } = await env.codes.issue(chatUser)
    const bound = await env.codes.bind(code.code, { platformUserId: String(5_000_000 + i), platformUsername: `Member_${i}` }, { source: 'bench' })
    if (bound.status !== 'bound') throw new Error(`memory seed bind gave ${bound.status}`)
    return [code.code, presenceOf(i, 'online', config.gamePlatformName)] as [string, PresenceEntry]
  })
  await env.presence.setMany(entries)
  const afterKeys = await sum()
  const afterUsed = await usedMemory(redis)
  const encodings = (await Promise.all(keys.map(async (k) => `${k.slice(ctx.keys.prefix.length + 1)}: ${String(await redis.call('OBJECT', 'ENCODING', k))}`))).join(', ')
  return { users, keyBytesPerUser: (afterKeys - beforeKeys) / users, usedMemoryPerUser: (afterUsed - beforeUsed) / users, encodings }
}
