import { createHash } from 'node:crypto'

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
  take(route: string, major: string): BucketTake
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
  const windows = new Map<string, { count: number; resetAt: number }>()
  const hashes = new Map<string, string>()
  const enforced = options.limit > 0
  const limit = enforced ? options.limit : UNENFORCED_LIMIT

  const hashOf = (route: string): string => {
    let hash = hashes.get(route)
    if (hash === undefined) {
      hash = createHash('sha1').update(route).digest('hex').slice(0, 32)
      hashes.set(route, hash)
    }
    return hash
  }

  return {
    take(route, major) {
      const now = options.now()
      const key = `${route}|${major}`
      let window = windows.get(key)
      if (!window || window.resetAt <= now) {
        window = { count: 0, resetAt: now + options.windowMs }
        windows.set(key, window)
      }
      const bucket = hashOf(route)
      const resetAfterMs = window.resetAt - now
      if (!enforced) return { allowed: true, limit, remaining: limit, resetAt: window.resetAt, resetAfterMs, bucket }
      if (window.count >= limit) return { allowed: false, limit, remaining: 0, resetAt: window.resetAt, resetAfterMs, bucket }
      window.count++
      return { allowed: true, limit, remaining: limit - window.count, resetAt: window.resetAt, resetAfterMs, bucket }
    },
    clear() {
      windows.clear()
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
