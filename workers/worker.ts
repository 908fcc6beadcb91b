/** Entry point: queue consumers in one process (all of them, or those named: `presence-link worker bind log`). */
import { createMetricsRegistry } from '../src/metrics/registry.js'
import { startMetricsServer } from '../src/metrics/metrics-server.js'
import { CONSUMERS, startConsumers, type ConsumerName } from '../src/runtime/consumers.js'
import { runProcess } from '../src/runtime/process-context.js'

const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'))
const unknown = asked.filter((a) => !(CONSUMERS as readonly string[]).includes(a))
if (unknown.length > 0) {
  process.stderr.write(`presence-link worker: unknown consumer ${unknown.join(', ')}; known: ${CONSUMERS.join(', ')}\n`)
  process.exit(64)
}
const names = asked.length === 0 ? CONSUMERS : (asked as ConsumerName[])
await runProcess('worker', async (ctx) => {
  const registry = createMetricsRegistry()
  await startConsumers(ctx, names, registry)
  const metrics = await startMetricsServer(ctx, registry, ctx.config.workerMetricsPort)
  ctx.log.info({ consumers: names, metricsPort: metrics.port }, 'worker ready')
})
