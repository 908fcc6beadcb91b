/**
 * Remembers, for IDEMPOTENCY_WINDOW_SECONDS, which event each idempotency key was first used for
 * (`{p}:idem:{job id}` = event fingerprint), so the front can tell a retry (same event) from a reuse of the key for
 * a different one. One round trip: SET NX EX GET (Redis 7.0+) claims the key or returns its event.
 */
import type { Redis } from 'ioredis'
import type { RedisKeys } from './keys.js'

/** What a request with an idempotency key is: the first use, a retry of the same event, or a different event. */
export type IdempotencyClaim = 'first' | 'retry' | 'conflict'

/** Claims `jobId` for `fingerprint`. */
export type ClaimIdempotencyKey = (jobId: string, fingerprint: string) => Promise<IdempotencyClaim>

/** Creates the claim over a fail-fast connection (throws when Redis is down; the front answers 503). */
export function createIdempotencyKeys(redis: Redis, keys: RedisKeys, windowSeconds: number): ClaimIdempotencyKey {
  return async (jobId, fingerprint) => {
    const previous = await redis.set(keys.idempotency(jobId), fingerprint, 'EX', windowSeconds, 'NX', 'GET')
    if (previous === null) return 'first'
    return previous === fingerprint ? 'retry' : 'conflict'
  }
}
