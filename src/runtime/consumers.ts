/** Starts queue consumers (BullMQ workers) for the named queues in this process. */
import { Worker, type Processor } from 'bullmq'
import type { Registry } from 'prom-client'
import { createCodeService } from '../codes/code-service.js'
import { startDelivery } from '../delivery/delivery-runner.js'
import { createBindProcessor } from '../jobs/bind-processor.js'
import { createLogProcessor } from '../jobs/log-processor.js'
import { createConsumerMetrics, registerQueueGauges, type JobCountsReader } from '../metrics/consumer-metrics.js'
import { createDeliveryMetrics } from '../metrics/delivery-metrics.js'
import { JobName, QueueName } from '../queue/names.js'
import { createQueue } from '../queue/queues.js'
import { createRobloxUsers } from '../roblox/roblox-users.js'
import type { ProcessContext } from './process-context.js'
import { keepRedisCopies, openDatabase, openRedis, prepareRedisCopies } from './storage.js'

/** Consumers this module can start. */
export type ConsumerName = 'bind' | 'log' | 'audit' | 'delivery'

/** Every consumer, in start order. */
export const CONSUMERS: readonly ConsumerName[] = ['bind', 'log', 'audit', 'delivery']

/** The consumers that are BullMQ workers; `delivery` posts stored entries to Discord (src/delivery/delivery-runner.ts). */
type QueueConsumer = Exclude<ConsumerName, 'delivery'>

/** Concurrency per consumer: binds serialize on row locks anyway; log inserts are independent. */
const CONCURRENCY: Record<QueueConsumer, number> = { bind: 16, log: 32, audit: 16 }

/** Started consumers, by name. */
export type StartedConsumers = Map<ConsumerName, { close(): Promise<void> }>

/**
 * Starts the named consumers sharing one MySQL pool and one Redis connection for data. With a `metrics` registry,
 * each job attempt's duration and result are recorded and every queue's depth is read from Redis at each scrape.
 */
export async function startConsumers(ctx: ProcessContext, names: readonly ConsumerName[], metrics?: Registry): Promise<StartedConsumers> {
  const db = await openDatabase(ctx, 20)
  const redis = await openRedis(ctx, 'request', 'data')
  const cache = await prepareRedisCopies(ctx, db, redis)
  keepRedisCopies(ctx, db, redis)
  const codes = createCodeService({ db, cache })
  const notifyQueue = createQueue(QueueName.Notify, redis, ctx.keys.bullPrefix)
  ctx.shutdown.register('notify-queue', () => notifyQueue.close())
  const processors: Record<QueueConsumer, Processor> = {
    bind: createBindProcessor({
      codes,
      resolve: createRobloxUsers({ baseUrl: ctx.config.robloxUsersApi, redis, cacheKey: ctx.keys.robloxUser }),
      notify: async (notice, jobId) => {
        await notifyQueue.add(JobName.NotifyBound, notice, { jobId })
      },
    }),
    log: createLogProcessor({ db }),
    audit: createLogProcessor({ db }),
  }
  const queueOf: Record<QueueConsumer, string> = { bind: QueueName.Bind, log: QueueName.Log, audit: QueueName.Audit }
  const jobMetrics = metrics === undefined ? undefined : createConsumerMetrics(metrics)
  if (metrics !== undefined) {
    const readers = new Map<string, JobCountsReader>()
    for (const queue of Object.values(QueueName)) {
      const handle = createQueue(queue, redis, ctx.keys.bullPrefix)
      ctx.shutdown.register(`queue-gauge:${queue}`, () => handle.close())
      readers.set(queue, (...states) => handle.getJobCounts(...states))
    }
    registerQueueGauges(metrics, readers, (err) => ctx.log.warn({ err: (err as Error).message }, 'queue gauges unavailable'))
  }
  const started: StartedConsumers = new Map()
  for (const name of names) {
    if (name === 'delivery') {
      const delivery = await startDelivery({
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
    })
    worker.on('failed', (job, err) => ctx.log.warn({ queue: name, jobId: job?.id, attempt: job?.attemptsMade, err: err.message }, 'job failed'))
    worker.on('error', (err) => ctx.log.error({ queue: name, err: err.message }, 'worker error'))
    // Close drains in-flight jobs before the MySQL pool and Redis (registered earlier) are closed.
    ctx.shutdown.register(`consumer:${name}`, () => worker.close())
    await worker.waitUntilReady()
    started.set(name, worker)
    ctx.log.info({ queue: name, concurrency: CONCURRENCY[name] }, 'consumer started')
  }
  return started
}
