/**
 * Opens MySQL, Redis and queue handles for a process and registers their close; prepares the schema and keeps the
 * Redis copies.
 */
import type { Queue } from 'bullmq'
import type { Redis } from 'ioredis'
import type { Kysely } from 'kysely'
import type { Registry } from 'prom-client'
import { createDatabase, ensureDatabase } from '../mysql/connection.js'
import { migrateToLatest } from '../mysql/migrate.js'
import type { Database } from '../mysql/schema.js'
import type { CodeCache } from '../redis/code-cache.js'
import { createCopyStore } from '../redis/copy-store.js'
import { createCopySource } from '../mysql/copy-source.js'
import { keepCopies, prepareCopies, type CopyKeeperDeps, type KeepCopiesOptions } from '../copies/copy-keeper.js'
import { createRedis, waitReady, type RedisRole } from '../redis/connection.js'
import { reconnectWhenSilent } from '../redis/silence-watch.js'
import type { ProcessContext } from './process-context.js'
import type { Reconciler } from '../copies/reconciler.js'
import type { QueueName } from '../queue/names.js'
import { closeQueueHandles, createQueue } from '../queue/queues.js'
import { watchBull, watchRedisClient, type BullEmitter } from '../redis/redis-watch.js'

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
  const redis = createRedis(ctx.config.redis, role, `${ctx.name}:${name}`)
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

/** A producer handle on queue `name` over `redis`, kept as keepBullHandle keeps one. */
export function openQueue(ctx: ProcessContext, redis: Redis, name: QueueName, client: string, closer: string): Queue {
  return keepBullHandle(ctx, client, closer, redis, createQueue(name, redis, ctx.keys.bullPrefix))
}

/**
 * Keeps a BullMQ handle (a consumer, or a queue's producer or events) on `connection`: its outages logged once per
 * change through the process's Redis watch under `client` (BullMQ repeats them at every reconnect attempt), its close
 * registered as `closer`. That close drains in-flight jobs before the clients registered earlier are closed; with
 * Redis down it is left to the exit (closeQueueHandles).
 */
export function keepBullHandle<H extends BullEmitter & { close(): Promise<void> }>(ctx: ProcessContext, client: string, closer: string, connection: Redis, handle: H): H {
  watchBull(ctx.redisWatch, client, handle)
  ctx.shutdown.register(closer, () => closeQueueHandles([handle], () => connection.status === 'ready'))
  return handle
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

/** Both sides of the Redis copies over this process's database and Redis connection. */
export function copiesOf(ctx: ProcessContext, db: Kysely<Database>, redis: Redis): CopyKeeperDeps {
  return {
    source: createCopySource(db),
    store: createCopyStore(redis, ctx.keys),
    log: ctx.log,
    redisDown: () => ctx.redisWatch.downClients().length > 0,
  }
}

/** Rebuilds the Redis copies from MySQL when they are missing (copies/copy-keeper.ts); returns the code cache. */
export async function prepareRedisCopies(ctx: ProcessContext, db: Kysely<Database>, redis: Redis): Promise<CodeCache> {
  const copies = copiesOf(ctx, db, redis)
  await prepareCopies(copies)
  return copies.store.codes
}

/** Keeps the Redis copies converging on MySQL (copies/copy-keeper.ts) until shutdown. */
export function keepRedisCopies(ctx: ProcessContext, db: Kysely<Database>, redis: Redis, options: KeepCopiesOptions & { metrics?: Registry } = {}): Reconciler {
  const { metrics, ...timing } = options
  const kept = keepCopies({ ...copiesOf(ctx, db, redis), ...(metrics === undefined ? {} : { metrics }) }, timing)
  ctx.shutdown.register('redis-copies', () => kept.stop())
  return kept.reconciler
}
