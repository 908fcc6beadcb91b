/** Builds one front process's server from real clients: Redis for reads and queues, a small MySQL pool for /readyz, info and safety. */
import type HyperExpress from 'hyper-express'
import { createKeyVerifier } from '../auth/api-key-store.js'
import { createClientIpResolver } from '../http/client-ip.js'
import { createFrontApp, type FrontObserver } from '../http/front-app.js'
import { createRateLimiter } from '../http/rate-limiter.js'
import { JobName, QueueName } from '../queue/names.js'
import { createQueue, createQueueEvents } from '../queue/queues.js'
import { checkSafety, readCodeInfo, threatDetectionCategory } from '../safety/safety-service.js'
import type { BindJobResult } from '../schemas/jobs.js'
import { createCodeLookup } from '../store/code-lookup.js'
import type { ProcessContext } from './process-context.js'
import { mysqlReachable, openDatabase, openRedis } from './storage.js'

/** A started front: its server and the port it listens on. */
export interface FrontRuntime {
  app: HyperExpress.Server
  port: number
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

  const app = createFrontApp({
    config,
    log,
    lookup: createCodeLookup(redis, keys),
    verifyKey: createKeyVerifier(redis, keys, config.apiKey),
    rateLimit: createRateLimiter(redis, keys, config.rateLimits),
    clientIp: createClientIpResolver(config.trustProxy),
    async submitBind(job) {
      // Few attempts: the caller waits, and a retried bind is safe (the same account gets already_bound).
      const added = await bindQueue.add(JobName.Bind, job, { attempts: 3, backoff: { type: 'fixed', delay: 200 } })
      try {
        return (await added.waitUntilFinished(bindEvents, config.bindTimeoutMs)) as BindJobResult
      } catch (err) {
        if (/timed out/i.test((err as Error).message)) return null
        throw err
      }
    },
    async submitLog(job, jobId) {
      await logQueue.add(JobName.Log, job, { jobId })
    },
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
      readInfo: (code, page) => readCodeInfo(db, code, page),
      checkSafety: (input) => checkSafety(db, input, { review: config.safetyReviewInfractions, unsafe: config.safetyUnsafeInfractions }),
      threatCategory: () => threatDetectionCategory(db, config.logDestinations.ingame),
    },
    ...(observer === undefined ? {} : { observer }),
  })
  await app.listen(config.port, config.host)
  // Registered last so it closes first: stop taking requests, let in-flight ones finish, then the clients.
  ctx.shutdown.register('http', async () => {
    app.close()
  })
  return { app, port: app.port }
}
