/**
 * The publisher's two budgets in Redis, shared by every worker (a publisher taking a universe over sees what the last
 * one spent): per universe, its budget of the minute (`{p}:push:rate:{universe}`, push/model/publish-budget.ts), and
 * over every universe, PUSH_PUBLISHES_PER_MINUTE (`{p}:push:rate`, Roblox's 5,000 per key owner). Each is a log of the
 * last 60 s by Redis's clock (scripts/rate-gate-take.lua), so no minute holds more than its budget.
 */
import type { Redis } from 'ioredis'
import type { RedisKeys } from './keys.js'
import { luaCommand } from './lua-scripts.js'

/** Takes one publish from both budgets, or says which one is spent. */
export type PushRateGates = (universe: number, universeBudget: number) => Promise<{ ok: true } | { ok: false; spent: 'universe' | 'owner'; waitMs: number }>

const MINUTE_MS = 60_000

/** Creates the gates over a Redis client; `token` makes this process's log members unique. */
export function createPushRateGates(redis: Redis, keys: RedisKeys, perMinute: number, token: string): PushRateGates {
  const take = luaCommand(redis, 'rate-gate-take')
  let counter = 0
  return async (universe, universeBudget) => {
    if (universeBudget < 1) return { ok: false, spent: 'universe', waitMs: MINUTE_MS }
    const universeWait = Number(await take([keys.pushUniverseRate(universe)], [universeBudget, MINUTE_MS, `${token}:${counter++}`]))
    if (universeWait > 0) return { ok: false, spent: 'universe', waitMs: universeWait }
    // The universe's slot is spent even when the owner's budget refuses: rare (the owner's budget is the larger), and
    // it only delays that universe by one message.
    const ownerWait = Number(await take([keys.pushRate], [perMinute, MINUTE_MS, `${token}:${counter++}`]))
    return ownerWait > 0 ? { ok: false, spent: 'owner', waitMs: ownerWait } : { ok: true }
  }
}
