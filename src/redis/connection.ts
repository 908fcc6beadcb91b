/** Redis connections, shaped per use: commands fail fast for request paths, block forever for BullMQ workers. */
import { Redis } from 'ioredis'

/** The longest pause between two reconnect attempts (a local TCP connect costs next to nothing). */
export const RECONNECT_CAP_MS = 500

/** How long a connection attempt may go unanswered before it is abandoned and tried again. */
export const CONNECT_TIMEOUT_MS = 3000

/** How a connection is used. */
export type RedisRole = 'request' | 'worker'

/** Creates a connection; `request` fails a command at once while disconnected, `worker` waits (BullMQ needs that). */
export function createRedis(url: string, role: RedisRole, name: string): Redis {
  return new Redis(url, {
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
  })
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
