/** Opens MySQL and Redis for a process and registers their close; prepares the schema and the Redis copies. */
import type { Redis } from 'ioredis'
import type { Kysely } from 'kysely'
import type { Registry } from 'prom-client'
import { listAllCodes } from '../mysql/code-rows.js'
import { createDatabase, ensureDatabase } from '../mysql/connection.js'
import { migrateToLatest } from '../mysql/migrate.js'
import type { Database } from '../mysql/schema.js'
import { createCodeCache, type CodeCache } from '../redis/code-cache.js'
import { createRedis, waitReady, type RedisRole } from '../redis/connection.js'
import { reconnectWhenSilent } from '../redis/silence-watch.js'
import type { ProcessContext } from './process-context.js'
import { startReconciler, type Reconciler, type ReconcilerOptions } from './reconciler.js'
import { watchRedisClient } from './redis-watch.js'
import { buildApiKeyService } from './services.js'

/** Opens the database (creating it when missing) and migrates it to the latest version. */
export async function openDatabase(ctx: ProcessContext, poolSize = 10, migrate = true): Promise<Kysely<Database>> {
  await ensureDatabase(ctx.config.databaseUrl)
  const db = createDatabase(ctx.config.databaseUrl, poolSize)
  ctx.shutdown.register('mysql', () => db.destroy())
  if (migrate) {
    const result = await migrateToLatest(db)
    for (const r of result.results ?? []) ctx.log.info({ migration: r.migrationName, status: r.status }, 'migration')
  }
  return db
}

/**
 * Opens a Redis connection and waits until it is ready (with `wait: false`, returns at once: the connection keeps
 * trying in the background, and commands on a fail-fast one fail until it is up). Its outages are logged once per
 * change through the process's Redis watch, under the client name `name`. A fail-fast (`request`) connection that
 * goes silent (a PING unanswered for 3 s: a partition, a peer gone without closing) is re-made (silence-watch.ts).
 */
export async function openRedis(ctx: ProcessContext, role: RedisRole, name: string, opts: { wait?: boolean } = {}): Promise<Redis> {
  const redis = createRedis(ctx.config.redisUrl, role, `${ctx.name}:${name}`)
  watchRedisClient(ctx.redisWatch, name, redis)
  const stopWatch =
    role === 'request' ? reconnectWhenSilent(redis, { onSilent: (silentMs) => ctx.log.warn({ client: name, silentMs }, 'redis connection silent: re-making it') }) : () => undefined
  ctx.shutdown.register(`redis:${name}`, async () => {
    stopWatch()
    await redis.quit().catch(() => redis.disconnect())
  })
  if (opts.wait !== false) await waitReady(redis)
  return redis
}

/**
 * A pool on the configured database without connecting (the front: it must start while MySQL is down, and it never
 * creates or migrates the database). Connections are made on first use.
 */
export function openDatabaseLazily(ctx: ProcessContext, poolSize: number): Kysely<Database> {
  const db = createDatabase(ctx.config.databaseUrl, poolSize)
  ctx.shutdown.register('mysql', () => db.destroy())
  return db
}

/** Rebuilds the Redis copies of codes and API keys from MySQL when they are missing; returns the cache. */
export async function prepareRedisCopies(ctx: ProcessContext, db: Kysely<Database>, redis: Redis): Promise<CodeCache> {
  const cache = createCodeCache(redis, ctx.keys)
  // Keys first: the code cache's built marker is written last, so a crash in between redoes both.
  const keys = await buildApiKeyService(db, redis, ctx.keys).sync()
  ctx.log.info({ keys }, 'API keys synced to Redis')
  if (await cache.ensureBuilt(() => listAllCodes(db))) ctx.log.info('code cache rebuilt from MySQL')
  return cache
}

/** Options of keepRedisCopies. */
export interface KeepCopiesOptions {
  /** How often the built marker is checked. */
  everyMs?: number
  /** Where the reconciler's repair counter is registered. */
  metrics?: Registry
  /** The reconciler's timing (runtime/reconciler.ts). */
  reconcile?: ReconcilerOptions
}

/**
 * Keeps the Redis copies converging on MySQL: rebuilds them whenever their built marker disappears (Redis restarted
 * empty, or was flushed), so game servers are not locked out and codes do not read as unknown until some process
 * restarts, and runs the reconciler (runtime/reconciler.ts), which repairs any other drift within seconds.
 */
export function keepRedisCopies(ctx: ProcessContext, db: Kysely<Database>, redis: Redis, options: KeepCopiesOptions = {}): Reconciler {
  let running = false
  const timer = setInterval(() => {
    if (running) return
    running = true
    createCodeCache(redis, ctx.keys)
      .isBuilt()
      .then(async (built) => {
        if (!built) {
          ctx.log.warn('the Redis copies are gone (Redis restarted empty?); rebuilding them from MySQL')
          await prepareRedisCopies(ctx, db, redis)
        }
      })
      .catch((err: Error) => {
        // While Redis is down the outage is already logged once; this would repeat it every few seconds.
        if (ctx.redisWatch.downClients().length === 0) ctx.log.warn({ err: err.message }, 'could not check the Redis copies')
      })
      .finally(() => {
        running = false
      })
  }, options.everyMs ?? 5000)
  timer.unref()
  const reconciler = startReconciler(
    { db, redis, keys: ctx.keys, log: ctx.log, ...(options.metrics === undefined ? {} : { metrics: options.metrics }) },
    options.reconcile,
  )
  ctx.shutdown.register('redis-copies', () => {
    clearInterval(timer)
    reconciler.stop()
  })
  return reconciler
}
