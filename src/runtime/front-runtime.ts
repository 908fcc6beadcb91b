/** Builds one front process's server from real clients: Redis for reads and queues, a small MySQL pool for /readyz, info and safety. */
import { createKeyVerifier } from '../auth/api-key-service.js'
import { createClientIpResolver } from '../http/client-ip.js'
import type { FrontObserver, StreamObserver } from '../http/front-observer.js'
import { createFrontApp, type FrontServer } from '../http/server.js'
import type { DependencyGauge } from '../metrics/dependency-metrics.js'
import { createBindClient } from '../queue/bind-client.js'
import { createLogBatcher } from '../queue/log-batcher.js'
import { QueueName } from '../queue/names.js'
import { createBatchAdder, createQueue, createQueueEvents } from '../queue/queues.js'
import { IDEMPOTENCY_WINDOW_SECONDS } from '../queue/model/idempotency-key.js'
import { createIdempotencyKeys } from '../redis/idempotency-keys.js'
import { createApiKeyCache } from '../redis/api-key-cache.js'
import { createApiKeyCopy } from '../redis/api-key-copy.js'
import { redisCheck, waitReadyAtFrontStart } from '../redis/connection.js'
import { createRateLimits, createUnitBudget } from '../redis/rate-limits.js'
import { createUnknownCodeBudget } from '../redis/unknown-code-budget.js'
import { createStreamHub, type StreamHub } from '../streams/stream-hub.js'
import type { ProcessContext } from './process-context.js'
import { startReadPath, type ReadPath } from '../redis/read-path.js'
import { createSafetyService } from '../safety/safety-service.js'
import { createDestinationRows } from '../mysql/destination-rows.js'
import { createWatchlistRows } from '../mysql/watchlist-rows.js'
import { createInfractionRows } from '../mysql/infraction-rows.js'
import { createReadiness, keepCheckingReadiness } from '../health/readiness.js'
import { mysqlCheck } from '../mysql/connection.js'
import { keepBullHandle, openDatabaseLazily, openRedis } from './storage.js'
import { createReplicaWait } from '../redis/replica-wait.js'
import { createCodeRows, findCodesOfPlatformUser } from '../mysql/code-rows.js'
import { createPushTargetRows } from '../mysql/push-target-rows.js'
import { createUsageRecorder } from '../redis/key-usage.js'
import { createPushSubscriptions } from '../redis/push-subscriptions.js'

/** A started front: its server and the port it listens on. */
export interface FrontRuntime {
  app: FrontServer
  port: number
  /** The stream hub (SSE and WebSocket subscriptions). */
  hub: StreamHub
  /** The change feed, shard marks, near cache and lookup this worker serves from (streams follow the same). */
  readPath: ReadPath
}

/**
 * Builds the app and listens on `config.port` (0 picks a free port). It starts whether or not Redis and MySQL are
 * up: the connections keep trying in the background, API routes answer 503 while Redis is down, and /readyz says
 * what is missing. `gauge` receives what each readiness check sees.
 */
export async function startFront(
  ctx: ProcessContext,
  observer?: FrontObserver & { streams?: (hub: StreamHub) => StreamObserver },
  gauge?: DependencyGauge,
): Promise<FrontRuntime> {
  const { config, keys, log } = ctx
  const redis = await openRedis(ctx, 'request', 'front', { wait: false })
  const queueRedis = await openRedis(ctx, 'request', 'front-queue', { wait: false })
  const eventsRedis = await openRedis(ctx, 'worker', 'front-events', { wait: false })
  const db = openDatabaseLazily(ctx, 4)

  const bindQueue = keepBullHandle(ctx, 'front-queue', 'queue:bind', queueRedis, createQueue(QueueName.Bind, queueRedis, keys.bullPrefix))
  const logQueue = keepBullHandle(ctx, 'front-queue', 'queue:log', queueRedis, createQueue(QueueName.Log, queueRedis, keys.bullPrefix))
  const bindEvents = keepBullHandle(ctx, 'front-events', 'queue-events:bind', eventsRedis, createQueueEvents(QueueName.Bind, eventsRedis, keys.bullPrefix))
  // "Accepted" means on REDIS_WRITE_REPLICAS replicas too: WAIT on the queue connection, which made the writes.
  const replicaWait = createReplicaWait(queueRedis, keys.replicaMark, {
    replicas: config.redisWriteReplicas,
    timeoutMs: config.redisWriteTimeoutMs,
    log,
    onShortfall: (write) => observer?.replicaShortfall?.(write),
  })
  // Log events go to the queue in micro-batches; registered after the queues so it drains before they close.
  const logBatcher = createLogBatcher(createBatchAdder(logQueue, () => replicaWait.own('log')))
  ctx.shutdown.register('log-batches', () => logBatcher.drain())
  // A bind waits for the event stream by itself.
  bindEvents.waitUntilReady().catch(() => undefined)
  await waitReadyAtFrontStart([redis, queueRedis], log)
  const readiness = createReadiness({ redis: redisCheck(redis), mysql: mysqlCheck(db) }, gauge)
  keepCheckingReadiness(ctx, readiness)
  const readPath = await startReadPath(ctx, redis, observer)
  // Streams follow the read path's feed and marks and read through its lookup (and so its near cache).
  const hub = createStreamHub({ lookup: readPath.lookup, feed: readPath.feed, marks: readPath.marks, log })
  ctx.shutdown.register('stream-hub', () => hub.close())
  const usage = createUsageRecorder(redis, keys, { log })
  ctx.shutdown.register('key-usage', () => usage.close())
  const pushTargets = createPushTargetRows(db)
  const pushSubscriptions = createPushSubscriptions(redis, keys)

  const app = createFrontApp({
    config,
    log,
    lookup: readPath.lookup,
    verifyKey: createKeyVerifier(createApiKeyCache(createApiKeyCopy(redis, keys), readPath.feed), config.apiKey),
    rateLimit: createRateLimits(redis, keys, config.rateLimits),
    unitBudget: createUnitBudget(redis, keys, config.rateLimits),
    unknownCodeBudget: createUnknownCodeBudget(redis, keys, config.unknownCodeBudget),
    clientIp: createClientIpResolver(config.trustProxy),
    submitBind: createBindClient({ queue: bindQueue, events: bindEvents, timeoutMs: config.bindTimeoutMs, confirm: () => replicaWait.all('bind') }),
    submitLog: logBatcher.submit,
    submitLogs: logBatcher.submitAll,
    claimIdempotencyKey: createIdempotencyKeys(redis, keys, IDEMPOTENCY_WINDOW_SECONDS),
    checkReady: readiness,
    redisUp: () => redis.status === 'ready' && queueRedis.status === 'ready',
    // Only the front reads the safety settings (safety-service.ts), so only its runtime builds the service.
    staff: createSafetyService({ codes: createCodeRows(db), infractions: createInfractionRows(db), watchlist: createWatchlistRows(db), destinations: createDestinationRows(db, config.discordApi) }, config),
    usage,
    push: {
      hasTarget: (keyId, universe) => pushTargets.exists(keyId, universe),
      subscribe: (...args) => pushSubscriptions.subscribe(...args),
      subscriptionSeconds: config.pushSubscriptionSeconds,
    },
    players: { codesOfPlayer: (platformUserId) => findCodesOfPlatformUser(db, platformUserId) },
    streams: {
      hub,
      ...(observer?.streams === undefined ? {} : { observer: observer.streams(hub) }),
      // The open streams close before the hub (registered earlier) stops following their codes.
      registerClose: (close) => ctx.shutdown.register('streams', close),
    },
    ...(observer === undefined ? {} : { observer }),
  })
  await app.listen(config.port, config.host)
  // Registered last so it closes first: stop taking requests, let in-flight ones finish, then the clients.
  ctx.shutdown.register('http', () => app.close())
  return { app, port: app.port, hub, readPath }
}
