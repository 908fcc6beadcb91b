/*
 * Discord's per-route rate limits for the fake REST API: one fixed window per route and major parameter (channel,
 * webhook, guild), counted by rate-limiter-flexible's RateLimiterMemory, answered with Discord's `X-RateLimit-*`
 * headers and its 429 body. @discordjs/rest reads these headers to queue per bucket and waits out `retry_after`.
 */
import { createHash } from 'node:crypto'
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible'

/** What one request did to its bucket, enough to write Discord's `X-RateLimit-*` headers. */
export interface BucketTake {
  allowed: boolean
  limit: number
  remaining: number
  resetAt: number
  resetAfterMs: number
  bucket: string
}

/** Per-route, per-major-parameter fixed-window buckets like Discord's. */
export interface RateLimits {
  /** Counts one request against `route` + `major`; `allowed` is false when the window is used up and limits are enforced. */
  take(route: string, major: string): Promise<BucketTake>
  /** Forgets every bucket. */
  clear(): void
}

/** Settings for {@link createRateLimits}; `limit: 0` sends headers but never answers 429. */
export interface RateLimitOptions {
  limit: number
  windowMs: number
  now: () => number
}

/** The header limit announced when enforcement is off. */
const UNENFORCED_LIMIT = 50

/** Creates the bucket table. */
export function createRateLimits(options: RateLimitOptions): RateLimits {
  const enforced = options.limit > 0
  const limit = enforced ? options.limit : UNENFORCED_LIMIT
  // Unenforced, the limiter still keeps each bucket's window (for the reset headers) but can never run out.
  const newLimiter = (): RateLimiterMemory =>
    new RateLimiterMemory({ points: enforced ? limit : Number.MAX_SAFE_INTEGER, duration: options.windowMs / 1000 })
  let limiter = newLimiter()
  const hashes = new Map<string, string>()

  const hashOf = (route: string): string => {
    let hash = hashes.get(route)
    if (hash === undefined) {
      hash = createHash('sha1').update(route).digest('hex').slice(0, 32)
      hashes.set(route, hash)
    }
    return hash
  }

  return {
    async take(route, major) {
      // RateLimiterMemory resolves while points remain and rejects with the same result shape once they are used up.
      const result = await limiter.consume(`${route}|${major}`).then(
        (res) => ({ allowed: true, res }),
        (err: unknown) => {
          if (err instanceof RateLimiterRes) return { allowed: false, res: err }
          throw err
        },
      )
      const resetAfterMs = result.res.msBeforeNext
      const remaining = enforced ? result.res.remainingPoints : limit
      return { allowed: result.allowed, limit, remaining, resetAt: options.now() + resetAfterMs, resetAfterMs, bucket: hashOf(route) }
    },
    clear() {
      limiter = newLimiter()
    },
  }
}

/** Discord's rate-limit headers for a bucket state. */
export function rateLimitHeaders(take: BucketTake): Record<string, string> {
  return {
    'x-ratelimit-limit': String(take.limit),
    'x-ratelimit-remaining': String(take.remaining),
    'x-ratelimit-reset': (take.resetAt / 1000).toFixed(3),
    'x-ratelimit-reset-after': (take.resetAfterMs / 1000).toFixed(3),
    'x-ratelimit-bucket': take.bucket,
  }
}

/** A Discord 429 reply's body and headers for a wait of `retryAfter` seconds. */
export function rateLimitedReply(retryAfter: number, take: BucketTake | null): {
  status: 429
  body: { message: string; retry_after: number; global: false }
  headers: Record<string, string>
} {
  const headers: Record<string, string> = {
    ...(take ? rateLimitHeaders({ ...take, remaining: 0, resetAfterMs: retryAfter * 1000 }) : {}),
    // Discord rounds this header up to whole seconds; the sandbox keeps the fraction so clients wait exactly `retry_after`.
    'retry-after': String(retryAfter),
    'x-ratelimit-scope': 'user',
  }
  return { status: 429, body: { message: 'You are being rate limited.', retry_after: retryAfter, global: false }, headers }
}
