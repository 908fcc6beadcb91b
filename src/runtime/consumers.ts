/**
 * Starts the named consumers of a worker process: opens its clients and hands them to the queue consumers (their
 * policy and building: src/queue/), to the delivery consumer (src/delivery/), to the push publisher (src/push/) and,
 * in `presence-link worker`, to the log pruner (src/retention/).
 */
import type { Redis } from 'ioredis'
import type { Kysely } from 'kysely'
import type { Registry } from 'prom-client'
import type { Config } from '../config.js'
import { createRobloxUsers } from '../codes/roblox-users.js'
import { startDelivery, type DeliveryRunner } from '../delivery/delivery-runner.js'
import type { Logger } from '../lib/logger.js'
import { createConsumerMetrics } from '../metrics/consumer-metrics.js'
import { createDeliveryMetrics, type DeliveryMetrics } from '../metrics/delivery-metrics.js'
import { createLogVolumeMetrics } from '../metrics/log-volume-metrics.js'
import { createDestinationRows } from '../mysql/destination-rows.js'
import { createLogEntryRows } from '../mysql/log-entry-rows.js'
import type { Database } from '../mysql/schema.js'
import { createBindJobProcessor } from '../queue/bind-processor.js'
import { createJobConsumer, queueOfConsumer } from '../queue/job-consumer.js'
import type { JobProcessor } from '../queue/job-processor.js'
import { openSharedLogCommit } from '../queue/log-group-commit.js'
import { createLogJobProcessor, type LogProcessorDeps } from '../queue/log-processor.js'
import { CONSUMER_CONCURRENCY, type ConsumerName, type JobConsumerName } from '../queue/model/consumer-policy.js'
import type { RetryPolicy } from '../queue/model/failure-kind.js'
import { QueueName } from '../queue/names.js'
import { createEventRequeue } from '../queue/queues.js'
import { createNotifyProducer } from '../queue/notify.js'
import { registerQueueMetrics } from '../metrics/queue-gauges.js'
import { registerReplicationMetrics } from '../metrics/replication-metrics.js'
import { createReplicationReader } from '../redis/replication-reader.js'
import { createDeliveryLease } from '../redis/delivery-lease.js'
import { createDeliveryRateGate } from '../redis/delivery-rate-gate.js'
import type { RedisKeys } from '../redis/keys.js'
import { createRobloxUserCache } from '../redis/roblox-user-cache.js'
import type { ProcessContext } from './process-context.js'
import { buildCodeService, buildPushTargets } from './services.js'
import { createPushMetrics } from '../metrics/push-metrics.js'
import { startPushPublisher, PUSH_LEASE_MS, type Publisher, type PushMetrics } from '../push/publisher.js'
import { createOpenCloudPublish } from '../push/open-cloud.js'
import { createPushRateGates } from '../redis/push-rate-gates.js'
import { createPushSentBlocks } from '../redis/push-sent-blocks.js'
import { createPushSubscriptions } from '../redis/push-subscriptions.js'
import { startReadPath } from '../redis/read-path.js'
import { holderId } from '../lib/holder-id.js'
import { keepBullHandle, keepRedisCopies, openDatabase, openQueue, openRedis, prepareRedisCopies } from './storage.js'
import { createRetentionMetrics } from '../metrics/retention-metrics.js'
import { createRetentionRows } from '../mysql/log-entry-retention.js'
import { createLogPruneTurn } from '../redis/log-prune-turn.js'
import { startLogPruner, type LogPruner } from '../retention/log-pruner.js'

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

/**
 * The push publisher over real clients: the front's read path (its own change feed subscriber, shard marks and near
 * cache, so a pushed block is what callbacks answers), the subscriptions, the sent blocks and both budgets in Redis,
 * and the targets' keys from MySQL (src/push/publisher.ts: refused without a PUSH_SECRET that opens them).
 */
export async function startPushConsumer(ctx: ProcessContext, deps: { db: Kysely<Database>; redis: Redis; metrics?: PushMetrics }): Promise<Publisher> {
  const { config, keys, log } = ctx
  const holder = holderId()
  return startPushPublisher({
    targets: buildPushTargets(deps.db, config.pushSecret, config.openCloudApi),
    openReadPath: () => startReadPath(ctx, deps.redis),
    subscriptions: createPushSubscriptions(deps.redis, keys),
    sent: createPushSentBlocks(deps.redis, keys),
    gates: createPushRateGates(deps.redis, keys, config.pushPublishesPerMinute, holder),
    openLease: (universe) => createDeliveryLease(deps.redis, keys.pushLease(universe), holder, PUSH_LEASE_MS),
    publish: createOpenCloudPublish(config.openCloudApi),
    config,
    log,
    ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
  })
}

/**
 * The log pruner over real clients (src/retention/): `log_entries` through MySQL, the turn (one prune at a time over
 * every worker) in Redis; it closes through the shutdown registry, before the clients it uses.
 */
export function startLogPrunerFor(ctx: ProcessContext, deps: { db: Kysely<Database>; redis: Redis; metrics?: Registry }): LogPruner {
  const holder = holderId()
  const pruner = startLogPruner({
    rows: createRetentionRows(deps.db),
    turn: createLogPruneTurn(deps.redis, ctx.keys, holder),
    config: ctx.config,
    log: ctx.log,
    ...(deps.metrics === undefined ? {} : { metrics: createRetentionMetrics(deps.metrics) }),
  })
  ctx.shutdown.register('log-pruner', () => pruner.close())
  return pruner
}

/** Options of startConsumers besides the process and its registry. */
export interface ConsumerOptions {
  /** The retry policy (tests shorten it); RETRY_POLICY by default. */
  retry?: RetryPolicy
  /** Also run the log pruner (`presence-link worker` does, whichever consumers it runs). */
  prune?: boolean
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
  const notifyQueue = openQueue(ctx, redis, QueueName.Notify, 'data', 'notify-queue')
  // The log and audit consumers share one group commit, and the producers that re-queue a batch's poison events.
  const requeues = new Map([QueueName.Log, QueueName.Audit].map((name) => [name, openQueue(ctx, redis, name, 'data', `requeue:${name}`)]))
  const logCommit: LogProcessorDeps = {
    commit: await openSharedLogCommit(db, ctx.log, metrics === undefined ? undefined : createLogVolumeMetrics(metrics)),
    requeue: createEventRequeue(requeues),
    log: ctx.log,
  }
  const processors: Record<JobConsumerName, JobProcessor<unknown>> = {
    bind: createBindJobProcessor({
      codes: buildCodeService(db, cache),
      resolve: createRobloxUsers({ baseUrl: ctx.config.robloxUsersApi, cache: createRobloxUserCache(redis, ctx.keys) }),
      notify: createNotifyProducer(notifyQueue),
    }),
    log: createLogJobProcessor(logCommit),
    audit: createLogJobProcessor(logCommit),
  }
  const jobMetrics = metrics === undefined ? undefined : createConsumerMetrics(metrics)
  if (metrics !== undefined) {
    const queues = new Map(Object.values(QueueName).map((queue) => [queue, openQueue(ctx, redis, queue, 'data', `queue-gauge:${queue}`)]))
    registerQueueMetrics(metrics, queues, ctx.log)
    registerReplicationMetrics(metrics, createReplicationReader(redis), ctx.log)
  }
  const started: StartedConsumers = new Map()
  for (const name of names) {
    if (name === 'push' || name === 'delivery') {
      const runner =
        name === 'push'
          ? await startPushConsumer(ctx, { db, redis, ...(metrics === undefined ? {} : { metrics: createPushMetrics(metrics) }) })
          : await startDeliveryConsumer({ ...ctx, db, redis, ...(metrics === undefined ? {} : { metrics: createDeliveryMetrics(metrics) }) })
      ctx.shutdown.register(`consumer:${name}`, () => runner.close())
      started.set(name, runner)
      continue
    }
    const connection = await openRedis(ctx, 'worker', `consumer-${name}`)
    const processor = jobMetrics === undefined ? processors[name] : jobMetrics.instrument(queueOfConsumer(name), processors[name])
    const consumer = createJobConsumer({ name, processor, connection, prefix: ctx.keys.bullPrefix, log: ctx.log, retry: options.retry })
    // With Redis down no job can be acknowledged anyway, and BullMQ hands an unfinished one out again once it is back.
    const worker = keepBullHandle(ctx, `consumer-${name}`, `consumer:${name}`, connection, consumer)
    await worker.waitUntilReady()
    started.set(name, worker)
    ctx.log.info({ queue: name, concurrency: CONSUMER_CONCURRENCY[name] }, 'consumer started')
  }
  if (options.prune === true) startLogPrunerFor(ctx, { db, redis, ...(metrics === undefined ? {} : { metrics }) })
  return started
}
