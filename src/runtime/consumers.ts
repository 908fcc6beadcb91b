/** Starts queue consumers (BullMQ workers) and the delivery consumer for the named consumers in this process. */
import { Worker } from 'bullmq'
import type { Redis } from 'ioredis'
import type { Kysely } from 'kysely'
import type { Registry } from 'prom-client'
import type { Config } from '../config.js'
import { startDelivery, type DeliveryRunner } from '../delivery/delivery-runner.js'
import { createBindProcessor } from '../queue/bind-processor.js'
import { createLogProcessor, type LogJobOutcome } from '../queue/log-processor.js'
import type { Logger } from '../lib/logger.js'
import {
  createConsumerMetrics,
  registerOldestUnstoredGauge,
  registerQueueGauges,
  type JobCountsReader,
  type OldestJobReader,
} from '../metrics/consumer-metrics.js'
import type { DeliveryMetrics } from '../metrics/delivery-metrics.js'
import { createDeliveryMetrics } from '../metrics/delivery-metrics.js'
import { createDestinationRows } from '../mysql/destination-rows.js'
import { createLogEntryRows } from '../mysql/log-entry-rows.js'
import type { Database } from '../mysql/schema.js'
import { createTransactions } from '../mysql/transactions.js'
import { failureKind, type RetryPolicy } from '../queue/model/failure-kind.js'
import { createJobProcessor, type JobProcessor } from '../queue/job-processor.js'
import { QueueName } from '../queue/names.js'
import { createNotifyProducer } from '../queue/notify.js'
import { createQueue, oldestUnfinishedJob } from '../queue/queues.js'
import { workerRetryOptions } from '../queue/retries.js'
import { createDeliveryLease } from '../redis/delivery-lease.js'
import { createDeliveryRateGate } from '../redis/delivery-rate-gate.js'
import type { RedisKeys } from '../redis/keys.js'
import { createRobloxUserCache } from '../redis/roblox-user-cache.js'
import { createRobloxUsers } from '../codes/roblox-users.js'
import { BindJobSchema, LogJobSchema } from '../queue/model/jobs.js'
import type { ProcessContext } from './process-context.js'
import { buildCodeService } from './services.js'
import { watchBull } from '../redis/redis-watch.js'
import { keepRedisCopies, openDatabase, openRedis, prepareRedisCopies } from './storage.js'

/** Consumers this module can start. */
export type ConsumerName = 'bind' | 'log' | 'audit' | 'delivery'

/** Every consumer, in start order. */
export const CONSUMERS: readonly ConsumerName[] = ['bind', 'log', 'audit', 'delivery']

/** The consumers that are BullMQ workers; `delivery` posts stored entries to Discord (src/delivery/delivery-runner.ts). */
type QueueConsumer = Exclude<ConsumerName, 'delivery'>

/** Concurrency per consumer: binds serialize on row locks anyway; log inserts are independent. */
const CONCURRENCY: Record<QueueConsumer, number> = { bind: 16, log: 32, audit: 16 }

/** Queues whose jobs are accepted events (the oldest-unstored-event gauge): log entries and audit entries. */
const UNSTORED_EVENT_QUEUES: readonly string[] = [QueueName.Log, QueueName.Audit]

/** Started consumers, by name. */
export type StartedConsumers = Map<ConsumerName, { close(): Promise<void> }>

/** The delivery consumer over real clients: MySQL rows, and the Redis lease and rate gate on a fail-fast connection. */
export function startDeliveryConsumer(deps: {
  db: Kysely<Database>
  redis: Redis
  keys: RedisKeys
  config: Config
  log: Logger
  metrics?: DeliveryMetrics
}): Promise<DeliveryRunner> {
  const { db, redis, keys, config } = deps
  return startDelivery({
    destinations: createDestinationRows(db, config.discordApi),
    entries: createLogEntryRows(db),
    openLease: (category, holder, ttlMs) => createDeliveryLease(redis, keys.deliveryLease(category), holder, ttlMs),
    openGate: (holder) => createDeliveryRateGate(redis, keys.deliveryRate, config.deliveryRateLimit, holder),
    config,
    log: deps.log,
    ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
  })
}

/** The log processor as its BullMQ workers run it (the log and audit queues share it). */
export function logJobProcessor(db: Kysely<Database>): JobProcessor<LogJobOutcome> {
  return createJobProcessor('log job', LogJobSchema, createLogProcessor({ transactions: createTransactions(db) }))
}

/** Options of startConsumers besides the process and its registry. */
export interface ConsumerOptions {
  /** The retry policy (tests shorten it); RETRY_POLICY by default. */
  retry?: RetryPolicy
}

/**
 * Starts the named consumers sharing one MySQL pool and one Redis connection for data. With a `metrics` registry,
 * each job attempt's duration and result are recorded and every queue's depth is read from Redis at each scrape.
 */
export async function startConsumers(
  ctx: ProcessContext,
  names: readonly ConsumerName[],
  metrics?: Registry,
  options: ConsumerOptions = {},
): Promise<StartedConsumers> {
  const db = await openDatabase(ctx, 20)
  const redis = await openRedis(ctx, 'request', 'data')
  const cache = await prepareRedisCopies(ctx, db, redis)
  keepRedisCopies(ctx, db, redis, metrics === undefined ? {} : { metrics })
  const codes = buildCodeService(db, cache)
  const notifyQueue = createQueue(QueueName.Notify, redis, ctx.keys.bullPrefix)
  watchBull(ctx.redisWatch, 'data', notifyQueue)
  ctx.shutdown.register('notify-queue', () => notifyQueue.close())
  const processors: Record<QueueConsumer, JobProcessor<unknown>> = {
    bind: createJobProcessor(
      'bind job',
      BindJobSchema,
      createBindProcessor({
        codes,
        resolve: createRobloxUsers({ baseUrl: ctx.config.robloxUsersApi, cache: createRobloxUserCache(redis, ctx.keys) }),
        notify: createNotifyProducer(notifyQueue),
      }),
    ),
    log: logJobProcessor(db),
    audit: logJobProcessor(db),
  }
  const queueOf: Record<QueueConsumer, string> = { bind: QueueName.Bind, log: QueueName.Log, audit: QueueName.Audit }
  const jobMetrics = metrics === undefined ? undefined : createConsumerMetrics(metrics)
  if (metrics !== undefined) {
    const readers = new Map<string, JobCountsReader>()
    const oldest = new Map<string, OldestJobReader>()
    for (const queue of Object.values(QueueName)) {
      const handle = createQueue(queue, redis, ctx.keys.bullPrefix)
      watchBull(ctx.redisWatch, 'data', handle)
      ctx.shutdown.register(`queue-gauge:${queue}`, () => handle.close())
      readers.set(queue, (...states) => handle.getJobCounts(...states))
      if (UNSTORED_EVENT_QUEUES.includes(queue)) oldest.set(queue, () => oldestUnfinishedJob(handle))
    }
    registerQueueGauges(metrics, readers, (err) => ctx.log.warn({ err: (err as Error).message }, 'queue gauges unavailable'))
    registerOldestUnstoredGauge(metrics, oldest, Date.now, (err) => ctx.log.warn({ err: (err as Error).message }, 'oldest-event gauge unavailable'))
  }
  const started: StartedConsumers = new Map()
  for (const name of names) {
    if (name === 'delivery') {
      const delivery = await startDeliveryConsumer({
        db,
        redis,
        keys: ctx.keys,
        config: ctx.config,
        log: ctx.log,
        ...(metrics === undefined ? {} : { metrics: createDeliveryMetrics(metrics) }),
      })
      ctx.shutdown.register('consumer:delivery', () => delivery.close())
      started.set(name, delivery)
      continue
    }
    const connection = await openRedis(ctx, 'worker', `consumer-${name}`)
    const processor = jobMetrics === undefined ? processors[name] : jobMetrics.instrument(queueOf[name], processors[name])
    const worker = new Worker(queueOf[name], processor, {
      connection,
      prefix: ctx.keys.bullPrefix,
      concurrency: CONCURRENCY[name],
      ...workerRetryOptions(options.retry),
    })
    worker.on('failed', (job, err) => {
      const kind = failureKind(err)
      // A job parked in the failed set needs `jobs redrive`: an error. A retry after an infrastructure failure is
      // debug only: during an outage every waiting job fails every 10 s, and the outage is logged by the connections.
      const parked = job !== undefined && job.finishedOn !== undefined && job.finishedOn !== null
      const level = parked ? 'error' : kind === 'infrastructure' ? 'debug' : 'warn'
      ctx.log[level]({ queue: name, jobId: job?.id, attempt: job?.attemptsMade, kind, err: err.message }, parked ? 'job failed for good' : 'job attempt failed, retrying')
    })
    worker.on('stalled', (jobId) => ctx.log.warn({ queue: name, jobId }, 'job stalled (its worker stopped): back to wait'))
    // Connection errors are logged once per outage by the watch; BullMQ repeats them at every reconnect attempt.
    watchBull(ctx.redisWatch, `consumer-${name}`, worker)
    // Close drains in-flight jobs before the MySQL pool and Redis (registered earlier) are closed.
    ctx.shutdown.register(`consumer:${name}`, () => worker.close())
    await worker.waitUntilReady()
    started.set(name, worker)
    ctx.log.info({ queue: name, concurrency: CONCURRENCY[name] }, 'consumer started')
  }
  return started
}
