/**
 * Whose turn it is to prune `log_entries`, over every worker: `{p}:retention:done` lives for one interval after a
 * complete prune (no worker starts another meanwhile), and `{p}:retention:lease` (delivery-lease.ts, renewed while
 * held) is held by the one worker pruning now. A prune that failed or stopped early leaves no `done` mark, so the
 * next worker to look takes the turn.
 */
import type { Redis } from 'ioredis'
import { createDeliveryLease, type DeliveryLease } from './delivery-lease.js'
import type { RedisKeys } from './keys.js'

/** Lease life: a worker that stalls this long loses the turn and stops between two batches. */
export const RETENTION_LEASE_MS = 30_000

/** One worker's view of the turn. */
export interface LogPruneTurn {
  /** True once a prune should run now and this worker holds the lease for it. */
  take(): Promise<boolean>
  /** True while this worker still holds the lease (checked before each batch). */
  readonly held: boolean
  /** Marks the prune complete for `intervalMs` and gives the lease up. */
  finish(intervalMs: number, at: Date): Promise<void>
  /** Gives the lease up without marking the prune done (it failed or stopped early). */
  release(): Promise<void>
}

/** Creates the turn for the holder `token` over a fail-fast connection (a Redis outage fails take(): no prune then). */
export function createLogPruneTurn(redis: Redis, keys: RedisKeys, token: string): LogPruneTurn {
  const lease: DeliveryLease = createDeliveryLease(redis, keys.retentionLease, token, RETENTION_LEASE_MS)
  return {
    async take() {
      if ((await redis.exists(keys.retentionDone)) === 1) return false
      return lease.acquire()
    },
    get held() {
      return lease.held
    },
    async finish(intervalMs, at) {
      await redis.set(keys.retentionDone, at.toISOString(), 'PX', intervalMs)
      await lease.release()
    },
    release: () => lease.release(),
  }
}
