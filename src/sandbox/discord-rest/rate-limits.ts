/*
 * Discord's rate limits for the fake REST API, as Discord documents them (topics/rate-limits): per-route buckets, one
 * fixed window per route and top-level resource (channel, guild, webhook id + token), shared by every channel under
 * one `X-RateLimit-Bucket` hash; and a global limit per bot token. Which bucket a route takes is named on the route
 * (rest-route.ts): sending a message in a channel (5 per 5 s per channel, the figure Discord commonly announces),
 * executing a webhook (5 per 2 s per webhook), every other route (50 per second per route and resource). Every
 * request with a bot token also counts against the global 50 per second of that token; interaction callbacks and
 * unauthenticated webhook calls do not (Discord limits those per IP, which the sandbox does not model).
 *
 * Answers carry `X-RateLimit-Limit`, `-Remaining`, `-Reset`, `-Reset-After` and `-Bucket`; a request past the limit
 * gets a 429 with Discord's body `{message, retry_after, global}`, `Retry-After` and `X-RateLimit-Scope` (`user`, or
 * `global` with `X-RateLimit-Global: true`). @discordjs/rest reads these headers, queues per bucket and waits out
 * `retry_after`. Counting is rate-limiter-flexible's RateLimiterMemory.
 */
import { createHash } from 'node:crypto'
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible'

/** One kind of bucket: `limit` requests per `windowMs`; `limit` 0 announces headers but never answers 429. */
export interface BucketRule {
  limit: number
  windowMs: number
}

/** The bucket kinds a route can take (see the file header). */
export const BUCKET_KINDS = ['route', 'messageCreate', 'webhookExecute', 'global'] as const

/** One bucket kind. */
export type BucketKind = (typeof BUCKET_KINDS)[number]

/** Every bucket kind's rule. */
export type RateLimitRules = Record<BucketKind, BucketRule>

/** The limits Discord documents or commonly announces, enforced by default. */
export const DISCORD_RATE_LIMITS: Readonly<RateLimitRules> = Object.freeze({
  route: { limit: 50, windowMs: 1000 },
  messageCreate: { limit: 5, windowMs: 5000 },
  webhookExecute: { limit: 5, windowMs: 2000 },
  global: { limit: 50, windowMs: 1000 },
})

/** Every rule with `limit` 0: headers as usual, never a 429 (the unlimited sandbox some benchmarks use). */
export const UNLIMITED: Readonly<RateLimitRules> = Object.freeze({
  route: { limit: 0, windowMs: 1000 },
  messageCreate: { limit: 0, windowMs: 5000 },
  webhookExecute: { limit: 0, windowMs: 2000 },
  global: { limit: 0, windowMs: 1000 },
})

/** What one request did to its bucket, enough to write Discord's `X-RateLimit-*` headers. */
export interface BucketTake {
  allowed: boolean
  limit: number
  remaining: number
  resetAt: number
  resetAfterMs: number
  bucket: string
  scope: 'user' | 'global'
}

/** Per-route, per-resource fixed-window buckets like Discord's, plus the global one. */
export interface RateLimits {
  /** Counts one request of `kind` against `route` + `major`; `allowed` is false when the window is used up and enforced. */
  take(kind: BucketKind, route: string, major: string): Promise<BucketTake>
  /** The rules in force. */
  rules(): RateLimitRules
  /** Replaces some rules (the others stay) and forgets every bucket. */
  configure(rules: Partial<RateLimitRules>): void
  /** Forgets every bucket (the rules stay). */
  clear(): void
}

/** The header limit announced for a rule that is not enforced: Discord's figure for that kind. */
const announcedLimit = (kind: BucketKind, rule: BucketRule): number => (rule.limit > 0 ? rule.limit : DISCORD_RATE_LIMITS[kind].limit)

/** Creates the bucket table with `rules` (Discord's by default); `now` is the clock in epoch ms. */
export function createRateLimits(options: { rules?: Partial<RateLimitRules>; now: () => number }): RateLimits {
  let rules: RateLimitRules = { ...DISCORD_RATE_LIMITS, ...options.rules }
  // An unenforced rule still keeps each bucket's window (for the reset headers) but can never run out.
  const newLimiter = (rule: BucketRule): RateLimiterMemory =>
    new RateLimiterMemory({ points: rule.limit > 0 ? rule.limit : Number.MAX_SAFE_INTEGER, duration: rule.windowMs / 1000 })
  const build = (): Map<BucketKind, RateLimiterMemory> => new Map(BUCKET_KINDS.map((kind) => [kind, newLimiter(rules[kind])]))
  let limiters = build()
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
    async take(kind, route, major) {
      const rule = rules[kind]
      const limiter = limiters.get(kind)!
      // RateLimiterMemory resolves while points remain and rejects with the same result shape once they are used up.
      const result = await limiter.consume(`${route}|${major}`).then(
        (res) => ({ allowed: true, res }),
        (err: unknown) => {
          if (err instanceof RateLimiterRes) return { allowed: false, res: err }
          throw err
        },
      )
      const limit = announcedLimit(kind, rule)
      const resetAfterMs = result.res.msBeforeNext
      const remaining = rule.limit > 0 ? result.res.remainingPoints : limit
      return {
        allowed: result.allowed,
        limit,
        remaining,
        resetAt: options.now() + resetAfterMs,
        resetAfterMs,
        bucket: hashOf(kind === 'global' ? 'global' : route),
        scope: kind === 'global' ? 'global' : 'user',
      }
    },
    rules: () => structuredClone(rules),
    configure(changed) {
      rules = { ...rules, ...changed }
      limiters = build()
    },
    clear() {
      limiters = build()
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

/** Seconds to wait for a refused take, as Discord writes `retry_after` (a float, never 0). */
export function retryAfterOf(take: BucketTake): number {
  return Math.max(0.001, Math.round(take.resetAfterMs) / 1000)
}

/**
 * A Discord 429 reply's body and headers for a wait of `retryAfter` seconds. A per-route refusal carries the bucket's
 * headers and scope `user`; a global one carries `X-RateLimit-Global: true` and scope `global` and no bucket headers,
 * as in Discord's examples. `take` null is an injected failure (control API): scope `user`, no bucket.
 */
export function rateLimitedReply(retryAfter: number, take: BucketTake | null): {
  status: 429
  body: { message: string; retry_after: number; global: boolean }
  headers: Record<string, string>
} {
  const global = take?.scope === 'global'
  const headers: Record<string, string> = {
    ...(take && !global ? rateLimitHeaders({ ...take, remaining: 0, resetAfterMs: retryAfter * 1000 }) : {}),
    ...(global ? { 'x-ratelimit-global': 'true' } : {}),
    // Discord rounds this header up to whole seconds; the sandbox keeps the fraction so clients wait exactly `retry_after`.
    'retry-after': String(retryAfter),
    'x-ratelimit-scope': global ? 'global' : 'user',
  }
  return { status: 429, body: { message: 'You are being rate limited.', retry_after: retryAfter, global }, headers }
}
