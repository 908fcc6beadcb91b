/** Entry point: the Discord gateway (presence, slash commands, audit events, bound-code DMs) for SHARD_IDS. */
import { startGateway } from './runtime/gateway-runtime.js'
import { createGatewayMetrics } from './metrics/gateway-metrics.js'
import { startMetricsServer } from './metrics/metrics-server.js'
import { createMetricsRegistry } from './metrics/registry.js'
import { runProcess } from './runtime/process-context.js'

await runProcess('gateway', async (ctx) => {
  const registry = createMetricsRegistry()
  const gateway = await startGateway(ctx, (presenceEntries) => createGatewayMetrics(registry, { presenceEntries }))
  const metrics = await startMetricsServer(ctx, registry, ctx.config.gatewayMetricsPort)
  ctx.log.info({ metricsPort: metrics.port, guilds: gateway.client.guilds.cache.size }, 'gateway metrics listening')
})
