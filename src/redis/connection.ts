/**
 * Redis connections, shaped per use: commands fail fast for request paths, block forever for BullMQ workers; and the
 * readiness check of one. A connection goes to one URL, or to the primary a set of Sentinels names: then every
 * (re)connect asks the Sentinels, so each connection follows a failover by itself (issue 22).
 */
import { Redis, type RedisOptions } from 'ioredis'
import type { RedisTarget } from '../config.js'
import { CHECK_TIMEOUT_MS, type DependencyCheck } from '../health/readiness.js'
import type { Logger } from '../lib/logger.js'
import { NewestViewSentinelConnector, SENTINEL_ASK_TIMEOUT_MS } from './sentinel-connector.js'

/** The longest pause between two reconnect attempts (a local TCP connect costs next to nothing). */
export const RECONNECT_CAP_MS = 500

/** How long a connection attempt may go unanswered before it is abandoned and tried again. */
export const CONNECT_TIMEOUT_MS = 3000

/** How a connection is used. */
export type RedisRole = 'request' | 'worker'

/**
 * How a Sentinel-managed connection finds and follows the primary. The failover detector listens to the Sentinels'
 * `+switch-master` and drops the connection at once (without it, a primary cut off but alive would keep the
 * connection until the silence watch or a write error noticed). A READONLY reply means the node we reach was demoted
 * (a failover we missed, or an old primary back as a replica): reconnect, which asks the Sentinels again, and send
 * the command again there.
 */
function sentinelOptions(target: Extract<RedisTarget, { kind: 'sentinel' }>): RedisOptions {
  return {
    sentinels: target.sentinels.map((s) => ({ host: s.host, port: s.port })),
    name: target.name,
    role: 'master',
    ...(target.password === '' ? {} : { password: target.password }),
    ...(target.sentinelPassword === '' ? {} : { sentinelPassword: target.sentinelPassword }),
    failoverDetector: true,
    // Asks every Sentinel and goes to the newest view's first; drops a stale failover detector (sentinel-connector.ts).
    Connector: NewestViewSentinelConnector,
    // A Sentinel that accepts but never answers (a hung process) would hold ioredis's question forever.
    sentinelCommandTimeout: SENTINEL_ASK_TIMEOUT_MS,
    sentinelRetryStrategy: (times) => Math.min(times * 100, RECONNECT_CAP_MS),
    reconnectOnError: (err) => (/^READONLY\b/.test(err.message) ? 2 : false),
  }
}

/**
 * Creates a connection to `target` (a URL string is the single-address form); `request` fails a command at once while
 * disconnected, `worker` waits (BullMQ needs that).
 */
export function createRedis(target: RedisTarget | string, role: RedisRole, name: string): Redis {
  const where = typeof target === 'string' ? { kind: 'url' as const, url: target } : target
  const options: RedisOptions = {
    connectionName: `presence-link:${name}`,
    lazyConnect: false,
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role === 'worker',
    // Reconnect attempts at most RECONNECT_CAP_MS apart: a connection is back within half a second of Redis, so a
    // revocation written meanwhile (or repaired by the reconciler) reaches every front within a second.
    retryStrategy: (times) => Math.min(times * 100, RECONNECT_CAP_MS),
    // A connect that gets no answer for 3 s is abandoned and tried afresh (ioredis waits 10 s by default): after a
    // partition heals, the next attempt's SYN goes out within half a second instead of at TCP's backed-off retry.
    connectTimeout: CONNECT_TIMEOUT_MS,
  }
  return where.kind === 'url' ? new Redis(where.url, options) : dropDetectorAtEnd(new Redis({ ...options, ...sentinelOptions(where) }))
}

/**
 * Returns `redis` (a connection through Sentinel), made to drop its failover detector once it ends. ioredis's detector
 * holds a subscriber on each Sentinel and drops them only in disconnect(), not after QUIT, so a connection closed by
 * QUIT would leave them reconnecting forever (and keep the process alive). Its duplicates get the same, since BullMQ
 * duplicates the connections it is given for its blocking commands.
 */
function dropDetectorAtEnd(redis: Redis): Redis {
  redis.once('end', () => redis.disconnect())
  const duplicate = redis.duplicate.bind(redis)
  redis.duplicate = ((override?: Partial<RedisOptions>) => dropDetectorAtEnd(duplicate(override))) as Redis['duplicate']
  return redis
}

/** Resolves once the connection is ready (or rejects after `timeoutMs`). */
export async function waitReady(redis: Redis, timeoutMs = 10_000): Promise<void> {
  if (redis.status === 'ready') return
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup()
      reject(new Error(`Redis not ready after ${timeoutMs} ms`))
    }, timeoutMs)
    const onReady = () => {
      cleanup()
      resolve()
    }
    const cleanup = () => {
      clearTimeout(timer)
      redis.off('ready', onReady)
    }
    redis.on('ready', onReady)
  })
}

/** How long a starting front waits for Redis before it listens without it. */
export const FRONT_START_WAIT_MS = 3000

/**
 * A starting front's wait for its Redis connections: a normal start answers its first request; with Redis down the
 * front listens anyway after FRONT_START_WAIT_MS (API routes answer 503 until it is back), and says so once.
 */
export async function waitReadyAtFrontStart(clients: readonly Redis[], log: Pick<Logger, 'warn'>): Promise<void> {
  await Promise.all(clients.map((redis) => waitReady(redis, FRONT_START_WAIT_MS))).catch(() =>
    log.warn({ waitedMs: FRONT_START_WAIT_MS }, 'Redis is unreachable; listening anyway (API routes answer 503 until it is back)'),
  )
}

/** Resolves at `redis`'s next `ready` or `error`, or after `ms`. */
function firstOutcome(redis: Redis, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      redis.off('ready', done)
      redis.off('error', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    redis.once('ready', done)
    redis.once('error', done)
  })
}

/**
 * Redis answers PING on `redis` (a fail-fast connection: a disconnected one fails at once, with the connection's
 * last error as the reason).
 */
export function redisCheck(redis: Redis): DependencyCheck {
  let lastError = ''
  redis.on('error', (err: Error) => {
    lastError = err.message || (err as { code?: string }).code || err.name
  })
  return async () => {
    // A connection opened a moment ago is still connecting: wait for its first outcome rather than report "connecting".
    if (redis.status !== 'ready' && lastError === '') await firstOutcome(redis, CHECK_TIMEOUT_MS - 500)
    if (redis.status !== 'ready') throw new Error(lastError === '' ? `not connected (${redis.status})` : lastError)
    return (await redis.ping()) === 'PONG'
  }
}
