/**
 * Per-IP rate limits counted in Redis (rate-limiter-flexible on ioredis), so every front process and machine shares
 * one budget per client. The front receives only the consume function.
 */
import type { Redis } from 'ioredis'
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible'
import type { RateLimits } from '../config.js'
import type { RedisKeys } from './keys.js'

/** The limited routes. */
export type LimitedRoute = keyof RateLimits

/** Outcome of one check. */
export type RateLimitOutcome = { ok: true } | { ok: false; retryAfterSeconds: number; limit: number; windowSeconds: number }

/** Spends one point of `route` for `ip`; throws only when Redis fails. */
export type RateLimitCheck = (route: LimitedRoute, ip: string) => Promise<RateLimitOutcome>

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
  return async (route, ip) => {
    const limiter = limiters.get(route)!
    try {
      await limiter.consume(ip, 1)
      return { ok: true }
    } catch (res) {
      if (res instanceof RateLimiterRes) {
        return {
          ok: false,
          retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
          limit: limits[route].points,
          windowSeconds: limits[route].seconds,
        }
      }
      throw res
    }
  }
}
