/**
 * The request budget shared by every delivery process: at most `perSecond` Discord requests in any sliding
 * second, counted in Redis. A fixed one-second window (rate-limiter-flexible's) would let twice the budget through
 * around a window boundary, so this keeps a log of the last second's requests instead.
 *
 * KEYS[1] `{p}:delivery:rate` sorted set: member = unique request token, score = Redis time in ms
 * ARGV[1] budget per second, ARGV[2] window in ms, ARGV[3] member for this request
 * Returns 0 when the request may go now (and records it), else the milliseconds until a slot frees.
 */
import type { Redis } from 'ioredis'

const TAKE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - now + 1)
`

/** Waits until one more request fits the shared budget. */
export type RateGate = (signal?: AbortSignal) => Promise<void>

/** Creates the gate over a Redis client; `token` makes this process's members unique. */
export function createRateGate(redis: Redis, key: string, perSecond: number, token: string): RateGate {
  const name = 'presenceLinkDeliveryTake'
  if (typeof (redis as unknown as Record<string, unknown>)[name] !== 'function') {
    redis.defineCommand(name, { numberOfKeys: 1, lua: TAKE_SCRIPT })
  }
  const take = (redis as unknown as Record<string, (...args: Array<string | number>) => Promise<number>>)[name]!.bind(redis)
  let counter = 0
  return async (signal) => {
    for (;;) {
      signal?.throwIfAborted()
      const waitMs = Number(await take(key, perSecond, 1000, `${token}:${counter++}`))
      if (waitMs === 0) return
      await new Promise((resolve) => setTimeout(resolve, waitMs))
    }
  }
}
