/**
 * "Accepted" means on two hosts (issue 22): after a write the front or the gateway is about to call accepted, WAIT
 * until REDIS_WRITE_REPLICAS replicas confirm it, at most REDIS_WRITE_TIMEOUT_MS. WAIT counts the replication offset
 * of the connection it runs on, so it must run on the connection that wrote (BullMQ's Queue uses the connection it is
 * given, so that is the queue's connection). Fewer confirmations than asked throws ReplicaShortfallError, which the
 * routes answer as 503 with Retry-After: the write is on the primary only, and a failover now would discard it.
 *
 * "The connection that wrote" is one socket, not one ioredis object. When the connection is re-made between the write
 * and its WAIT (a failover: the write went to the old primary, the WAIT to the new one, whose replica acknowledges its
 * own stream at once; seen in the data-partition scenario as 41 events answered `logged` and lost), the WAIT confirms
 * nothing about the write. So a confirmation is begun before the write, and one whose connection closed since then is
 * a shortfall.
 */
import type { Redis } from 'ioredis'
import type { Logger } from '../lib/logger.js'

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

/** The connection was re-made between a write and its WAIT: the WAIT ran on another socket and confirms nothing. */
export class ReplicaConnectionChangedError extends ReplicaShortfallError {
  constructor(wanted: number, timeoutMs: number) {
    super(0, wanted, timeoutMs)
    this.message = 'the Redis connection was re-made between the write and its confirmation: nothing confirmed'
  }
}

/** Which write a confirmation was for (the label of presence_link_redis_write_shortfalls_total). */
export type ConfirmedWrite = 'log' | 'bind' | 'audit'

/**
 * Each write's shortfall line: a log event or a bind is answered 503 (the client sends it again); an audit event is on
 * the primary only, and the gateway has nobody to answer.
 */
const SHORTFALL_LINES: Record<ConfirmedWrite, ['warn' | 'error', string]> = {
  log: ['warn', 'a write was not confirmed by enough Redis replicas: answering 503'],
  bind: ['warn', 'a write was not confirmed by enough Redis replicas: answering 503'],
  audit: ['error', 'an audit event was not confirmed by enough Redis replicas'],
}

/** What a confirmer needs: how many replicas, how long, where a shortfall is logged, and who else hears of it (a metric). */
export interface ReplicaWaitOptions {
  replicas: number
  timeoutMs: number
  log?: Pick<Logger, 'warn' | 'error'>
  onShortfall?(write: ConfirmedWrite, confirmed: number): void
}

/**
 * Confirms writes made on `redis`. `own(write)`, called before the write: the function it returns, awaited after the
 * write, resolves once every write this connection made so far is on the replicas. `all(write)`: every write the
 * primary took so far, from any client (a bind's writes are the worker's): it writes a small mark on this connection
 * first, which the replication stream carries after them, then waits for that. Both resolve at once when `replicas`
 * is 0, and throw a ReplicaShortfallError when the connection was re-made meanwhile.
 */
export interface ReplicaWait {
  readonly replicas: number
  own(write: ConfirmedWrite): () => Promise<void>
  all(write: ConfirmedWrite): Promise<void>
}

/** Creates the confirmer over `redis`; `markKey` is the key `all` writes (keys.replicaMark). */
export function createReplicaWait(redis: Redis, markKey: string, opts: ReplicaWaitOptions): ReplicaWait {
  const { replicas, timeoutMs } = opts
  // Counts the sockets this connection has lost: a confirmation is only for the socket its write went on.
  let closes = 0
  redis.on('close', () => closes++)
  /** Throws unless WAIT's `confirmed` is enough and was counted on the socket of `since` (the write's). */
  const check = (write: ConfirmedWrite, since: number, confirmed: number) => {
    const remade = closes !== since
    if (!remade && confirmed >= replicas) return
    const [level, line] = SHORTFALL_LINES[write]
    opts.log?.[level]({ write, confirmed: remade ? 0 : confirmed, wanted: replicas }, line)
    opts.onShortfall?.(write, remade ? 0 : confirmed)
    throw remade ? new ReplicaConnectionChangedError(replicas, timeoutMs) : new ReplicaShortfallError(confirmed, replicas, timeoutMs)
  }
  return {
    replicas,
    own(write) {
      if (replicas === 0) return async () => undefined
      const since = closes
      return async () => {
        check(write, since, await redis.wait(replicas, timeoutMs))
      }
    },
    async all(write) {
      if (replicas === 0) return
      const since = closes
      // SET then WAIT in one round trip; the mark's value is irrelevant (it only moves this connection's offset).
      const results = (await redis.pipeline().set(markKey, '1', 'EX', 3600).wait(replicas, timeoutMs).exec()) ?? []
      for (const [err] of results) if (err) throw err
      check(write, since, Number(results[1]?.[1] ?? 0))
    },
  }
}
