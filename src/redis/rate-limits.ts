/**
 * Per-client rate limits (IPv4 address, IPv6 /64) counted in Redis (rate-limiter-flexible on ioredis), so every front process and machine shares
 * one budget per client. The front receives only the consume function.
 */
import type { Redis } from 'ioredis'
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible'
import type { RateLimits } from '../config.js'
import type { RedisKeys } from './keys.js'

/** The limited routes. */
export type LimitedRoute = keyof RateLimits

/** Where a client stands in a route's window, for the RateLimit-* headers (absent when limits are off). */
export interface RateLimitState {
  limit: number
  remaining: number
  resetSeconds: number
}

/** Outcome of one check. */
export type RateLimitOutcome =
  | { ok: true; state?: RateLimitState }
  | { ok: false; retryAfterSeconds: number; limit: number; windowSeconds: number; state: RateLimitState }

/** Spends one point of `route` for `client` (an IPv4 address or an IPv6 /64, http/model/client-key.ts); throws only when Redis fails. */
export type RateLimitCheck = (route: LimitedRoute, client: string) => Promise<RateLimitOutcome>

/** Creates the checker; `limits` null means rate limiting is off (benchmarks). */
export function createRateLimits(redis: Redis, keys: RedisKeys, limits: RateLimits | null): RateLimitCheck {
  if (limits === null) return async () => ({ ok: true })
  const limiters = new Map<LimitedRoute, RateLimiterRedis>()
  for (const route of Object.keys(limits) as LimitedRoute[]) {
    const { points, seconds } = limits[route]
    limiters.set(
      route,
      new RateLimiterRedis({ storeClient: redis, keyPrefix: keys.rateLimitPrefix(route), points, duration: seconds, rejectIfRedisNotReady: true }),
    )
  }
  const stateOf = (route: LimitedRoute, res: RateLimiterRes): RateLimitState => ({
    limit: limits[route].points,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(0, Math.ceil(res.msBeforeNext / 1000)),
  })
  return async (route, client) => {
    const limiter = limiters.get(route)!
    try {
      return { ok: true, state: stateOf(route, await limiter.consume(client, 1)) }
    } catch (res) {
      if (res instanceof RateLimiterRes) {
        return {
          ok: false,
          retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
          limit: limits[route].points,
          windowSeconds: limits[route].seconds,
          state: stateOf(route, res),
        }
      }
      throw res
    }
  }
}
