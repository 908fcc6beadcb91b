/**
 * Redis outage logging: every Redis client of a process (our ioredis connections and the BullMQ queues, workers and
 * event streams built on them) reports one `redis unreachable` line when it loses Redis and one `redis reachable
 * again` when it is back, through the process logger (so LOG_LEVEL applies). Without a listener, ioredis prints
 * "Unhandled error event" and BullMQ `console.error`s a stack trace on every reconnect attempt.
 */
import type { Redis } from 'ioredis'
import type { Logger } from '../lib/logger.js'

/** Up/down state of every named Redis client in one process. */
export interface RedisWatch {
  /** `client` failed to reach Redis; logs only when it was not already down. */
  down(client: string, err: unknown): void
  /** `client` is connected; logs only when it was down. */
  up(client: string): void
  /** Names of the clients currently down. */
  downClients(): string[]
}

/** The error's code (ECONNREFUSED, ETIMEDOUT, ...) or, without one, its first line. */
export function errorCode(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown } | null
  if (e !== null && typeof e === 'object') {
    if (typeof e.code === 'string' && e.code !== '') return e.code
    if (typeof e.message === 'string') return e.message.split('\n')[0]!.slice(0, 200)
  }
  return String(err).slice(0, 200)
}

/** Creates the state table; lines go to `log`. */
export function createRedisWatch(log: Logger): RedisWatch {
  const down = new Map<string, string>()
  return {
    down(client, err) {
      if (down.has(client)) return
      const code = errorCode(err)
      down.set(client, code)
      log.warn({ client, code }, 'redis unreachable')
    },
    up(client) {
      const was = down.get(client)
      if (was === undefined) return
      down.delete(client)
      log.info({ client, was }, 'redis reachable again')
    },
    downClients: () => [...down.keys()],
  }
}

/** Feeds an ioredis connection's events into `watch` under `client`. */
export function watchRedisClient(watch: RedisWatch, client: string, redis: Redis): void {
  redis.on('error', (err) => watch.down(client, err))
  redis.on('ready', () => watch.up(client))
}

/** The part of a BullMQ Queue, Worker or QueueEvents the watch needs. */
export interface BullEmitter {
  on(event: 'error', listener: (err: Error) => void): unknown
  getBackend(): { on(event: 'ready', listener: () => void): unknown }
}

/**
 * Feeds a BullMQ object's errors into `watch`. BullMQ re-emits the errors of the connection it was given and of the
 * blocking connection it duplicates from it; its backend says 'ready' when either is connected again.
 */
export function watchBull(watch: RedisWatch, client: string, bull: BullEmitter): void {
  bull.on('error', (err) => watch.down(client, err))
  bull.getBackend().on('ready', () => watch.up(client))
}
