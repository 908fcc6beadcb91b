/**
 * The request budget shared by every delivery process: at most `perSecond` Discord requests in any sliding
 * second, counted in Redis. A fixed one-second window (rate-limiter-flexible's) would let twice the budget through
 * around a window boundary, so this keeps a log of the last second's requests instead.
 * The step is scripts/rate-gate-take.lua on `{p}:delivery:rate`.
 */
import type { Redis } from 'ioredis'
import { luaCommand } from './lua-scripts.js'

/** Waits until one more request fits the shared budget. */
export type RateGate = (signal?: AbortSignal) => Promise<void>

/** Creates the gate over a Redis client; `token` makes this process's members unique. */
export function createDeliveryRateGate(redis: Redis, key: string, perSecond: number, token: string): RateGate {
  const take = luaCommand(redis, 'rate-gate-take')
  let counter = 0
  return async (signal) => {
    for (;;) {
      signal?.throwIfAborted()
      const waitMs = Number(await take([key], [perSecond, 1000, `${token}:${counter++}`]))
      if (waitMs === 0) return
      await new Promise((resolve) => setTimeout(resolve, waitMs))
    }
  }
}
