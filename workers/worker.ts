/**
 * Entry point: queue consumers in one process (all of them, or those named: `presence-link worker bind log`), and the
 * log pruner (LOG_RETENTION_DAYS; one worker prunes at a time). Its metrics port also answers /healthz and /readyz
 * from the start; the consumers start once Redis and MySQL answer.
 * Push targets stored while PUSH_SECRET is unset or wrong stop it with 78 and one line saying so.
 */
import { createDependencyGauge } from '../src/metrics/dependency-metrics.js'
import { createMetricsRegistry } from '../src/metrics/registry.js'
import { startMetricsServer } from '../src/metrics/metrics-server.js'
import { ensureDatabase, mysqlCheck } from '../src/mysql/connection.js'
import { CONSUMERS, type ConsumerName } from '../src/queue/model/consumer-policy.js'
import { startConsumers } from '../src/runtime/consumers.js'
import { announceStarted, CONFIG_REFUSED_EXIT, reportStartFailed } from '../src/lib/part-started.js'
import { PushConfigError } from '../src/push/push-targets.js'
import { runProcess } from '../src/runtime/process-context.js'
import { createReadiness, keepCheckingReadiness, partReadyCheck, waitForDependencies } from '../src/health/readiness.js'
import { redisCheck } from '../src/redis/connection.js'
import { openDatabaseLazily, openRedis } from '../src/runtime/storage.js'

const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'))
const unknown = asked.filter((a) => !(CONSUMERS as readonly string[]).includes(a))
if (unknown.length > 0) {
  process.stderr.write(`presence-link worker: unknown consumer ${unknown.join(', ')}; known: ${CONSUMERS.join(', ')}\n`)
  process.exit(64)
}
const names = asked.length === 0 ? CONSUMERS : (asked as ConsumerName[])
await runProcess('worker', async (ctx) => {
  const registry = createMetricsRegistry()
  const readiness = createReadiness(
    { redis: redisCheck(await openRedis(ctx, 'request', 'health', { wait: false })), mysql: mysqlCheck(openDatabaseLazily(ctx, 1)) },
    createDependencyGauge(registry),
  )
  let started = false
  const metrics = await startMetricsServer(ctx, registry, ctx.config.workerMetricsPort, partReadyCheck(readiness, () => started))
  await waitForDependencies(ctx, readiness, () => ensureDatabase(ctx.config.databaseUrl))
  try {
    await startConsumers(ctx, names, registry, { prune: true })
  } catch (err) {
    // Push targets exist but PUSH_SECRET cannot open their keys: a configuration to fix, refused at every restart.
    if (!(err instanceof PushConfigError)) throw err
    ctx.log.fatal({}, `worker cannot start: ${err.message}`)
    await reportStartFailed(err.message)
    await ctx.shutdown.run('push configuration refused')
    process.exit(CONFIG_REFUSED_EXIT)
  }
  started = true
  keepCheckingReadiness(ctx, readiness)
  ctx.log.info({ consumers: names, metricsPort: metrics.port }, 'worker ready')
  announceStarted()
})
