/**
 * "Accepted" means on two hosts (issue 22): after a write the front or the gateway is about to call accepted, WAIT
 * until REDIS_WRITE_REPLICAS replicas confirm it, at most REDIS_WRITE_TIMEOUT_MS. WAIT counts the replication offset
 * of the connection it runs on, so it must run on the connection that wrote (BullMQ's Queue uses the connection it is
 * given, so that is the queue's connection). Fewer confirmations than asked throws ReplicaShortfallError, which the
 * routes answer as 503 with Retry-After: the write is on the primary only, and a failover now would discard it.
 */
import type { Redis } from 'ioredis'

/** Fewer replicas than REDIS_WRITE_REPLICAS confirmed a write within REDIS_WRITE_TIMEOUT_MS. */
export class ReplicaShortfallError extends Error {
  override readonly name = 'ReplicaShortfallError'
  constructor(
    readonly confirmed: number,
    readonly wanted: number,
    readonly timeoutMs: number,
  ) {
    super(`only ${confirmed} of ${wanted} Redis replicas confirmed the write within ${timeoutMs} ms`)
  }
}

/** Which write a confirmation was for (the label of presence_link_redis_write_shortfalls_total). */
export type ConfirmedWrite = 'log' | 'bind' | 'audit'

/** What a confirmer needs: how many replicas, how long, and who hears of a shortfall. */
export interface ReplicaWaitOptions {
  replicas: number
  timeoutMs: number
  onShortfall?(write: ConfirmedWrite, confirmed: number): void
}

/**
 * Confirms writes made on `redis`. `own(write)`: every write this connection made so far is on the replicas.
 * `all(write)`: every write the primary took so far, from any client (a bind's writes are the worker's): it writes a
 * small mark on this connection first, which the replication stream carries after them, then waits for that.
 * Both resolve at once when `replicas` is 0.
 */
export interface ReplicaWait {
  readonly replicas: number
  own(write: ConfirmedWrite): Promise<void>
  all(write: ConfirmedWrite): Promise<void>
}

/** Creates the confirmer over `redis`; `markKey` is the key `all` writes (keys.replicaMark). */
export function createReplicaWait(redis: Redis, markKey: string, opts: ReplicaWaitOptions): ReplicaWait {
  const { replicas, timeoutMs } = opts
  const check = (write: ConfirmedWrite, confirmed: number) => {
    if (confirmed >= replicas) return
    opts.onShortfall?.(write, confirmed)
    throw new ReplicaShortfallError(confirmed, replicas, timeoutMs)
  }
  return {
    replicas,
    async own(write) {
      if (replicas === 0) return
      check(write, await redis.wait(replicas, timeoutMs))
    },
    async all(write) {
      if (replicas === 0) return
      // SET then WAIT in one round trip; the mark's value is irrelevant (it only moves this connection's offset).
      const results = (await redis.pipeline().set(markKey, '1', 'EX', 3600).wait(replicas, timeoutMs).exec()) ?? []
      for (const [err] of results) if (err) throw err
      check(write, Number(results[1]?.[1] ?? 0))
    },
  }
}
