/**
 * The per-client budget of distinct unknown codes (UNKNOWN_CODE_BUDGET per hour), kept in Redis so every front
 * shares it: scripts/unknown-code-budget.lua checks and records a request's unknown codes in one round trip.
 * The front calls it only when a request has unknown codes, so a game server polling linked codes never pays for it.
 */
import type { Redis } from 'ioredis'
import { UNKNOWN_CODE_WINDOW_SECONDS } from '../codes/model/unknown-codes.js'
import type { RedisKeys } from './keys.js'
import { luaCommand } from './lua-scripts.js'

/** Outcome of spending the budget: allowed, or refused until the client's window ends. */
export type UnknownCodeOutcome =
  | { ok: true }
  | { ok: false; retryAfterSeconds: number; budget: number; windowSeconds: number; firstRefusal: boolean }

/** Spends the budget of `client` (see http/model/client-key.ts) for these distinct unknown codes; throws only when Redis fails. */
export type UnknownCodeBudget = (client: string, unknownCodes: readonly string[]) => Promise<UnknownCodeOutcome>

/** Creates the budget check; null when `budget` is 0 (off). */
export function createUnknownCodeBudget(
  redis: Redis,
  keys: RedisKeys,
  budget: number,
  windowSeconds: number = UNKNOWN_CODE_WINDOW_SECONDS,
): UnknownCodeBudget | null {
  if (budget <= 0) return null
  const spend = luaCommand(redis, 'unknown-code-budget')
  return async (client, unknownCodes) => {
    if (unknownCodes.length === 0) return { ok: true }
    const [allowed, , leftMs, first] = (await spend(
      [keys.unknownCodes(client), keys.unknownCodesHit(client)],
      [budget, windowSeconds * 1000, ...unknownCodes],
    )) as [number, number, number, number]
    if (allowed === 1) return { ok: true }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(leftMs / 1000)), budget, windowSeconds, firstRefusal: first === 1 }
  }
}
