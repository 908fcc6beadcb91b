/** Builds one front process's server from real clients: Redis for reads and queues, a small MySQL pool for /readyz, info and safety. */
import type HyperExpress from 'hyper-express'
import { createKeyVerifier } from '../auth/api-key-service.js'
import { createClientIpResolver } from '../http/client-ip.js'
import { createFrontApp, type FrontObserver } from '../http/front-app.js'
import { mysqlReachable } from '../mysql/connection.js'
import { createBindClient } from '../queue/bind-client.js'
import { JobName, QueueName } from '../queue/names.js'
import { createLogProducer, createQueue, createQueueEvents } from '../queue/queues.js'
import { createApiKeyCopy } from '../redis/api-key-copy.js'
import { createRateLimits } from '../redis/rate-limits.js'
import { createUnknownCodeBudget } from '../redis/unknown-code-budget.js'
import type { ProcessContext } from './process-context.js'
import { startReadPath, type ReadPath } from './read-path.js'
import { buildSafetyService } from './services.js'
import { openDatabase, openRedis } from './storage.js'

/** A started front: its server and the port it listens on. */
export interface FrontRuntime {
  app: HyperExpress.Server
  port: number
  /** The change feed, shard marks, near cache and lookup this worker serves from (streams follow the same). */
  readPath: ReadPath
}

/** Builds the app and listens on `config.port` (0 picks a free port). */
export async function startFront(ctx: ProcessContext, observer?: FrontObserver): Promise<FrontRuntime> {
  const { config, keys, log } = ctx
  const redis = await openRedis(ctx, 'request', 'front')
  const queueRedis = await openRedis(ctx, 'request', 'front-queue')
  const eventsRedis = await openRedis(ctx, 'worker', 'front-events')
  const db = await openDatabase(ctx, 4, false)

  const bindQueue = createQueue(QueueName.Bind, queueRedis, keys.bullPrefix)
  const logQueue = createQueue(QueueName.Log, queueRedis, keys.bullPrefix)
  const bindEvents = createQueueEvents(QueueName.Bind, eventsRedis, keys.bullPrefix)
  ctx.shutdown.register('queues', async () => {
    await Promise.all([bindQueue.close(), logQueue.close(), bindEvents.close()])
  })
  await bindEvents.waitUntilReady()
  const readPath = await startReadPath(ctx, redis, observer)
  const safety = buildSafetyService(db, config.discordApi)
  const thresholds = { review: config.safetyReviewInfractions, unsafe: config.safetyUnsafeInfractions }

  const app = createFrontApp({
    config,
    log,
    lookup: readPath.lookup,
    verifyKey: createKeyVerifier(createApiKeyCopy(redis, keys), config.apiKey),
    rateLimit: createRateLimits(redis, keys, config.rateLimits),
    unknownCodeBudget: createUnknownCodeBudget(redis, keys, config.unknownCodeBudget),
    clientIp: createClientIpResolver(config.trustProxy),
    submitBind: createBindClient({ queue: bindQueue, events: bindEvents, timeoutMs: config.bindTimeoutMs }),
    submitLog: createLogProducer(logQueue, JobName.Log),
    async checkReady() {
      const [r, m] = await Promise.all([
        redis.ping().then(
          () => true,
          () => false,
        ),
        mysqlReachable(db),
      ])
      return { redis: r, mysql: m }
    },
    staff: {
      readInfo: (code, page) => safety.readCodeInfo(code, page),
      checkSafety: (input) => safety.check(input, thresholds),
      threatCategory: () => safety.threatCategory(config.logDestinations.ingame),
    },
    ...(observer === undefined ? {} : { observer }),
  })
  await app.listen(config.port, config.host)
  // Registered last so it closes first: stop taking requests, let in-flight ones finish, then the clients.
  ctx.shutdown.register('http', async () => {
    app.close()
  })
  return { app, port: app.port, readPath }
}
