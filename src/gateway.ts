/**
 * Entry point: the Discord gateway (presence, slash commands, audit events, bound-code DMs) for SHARD_IDS. Its
 * metrics port also answers /healthz and /readyz (Redis, MySQL, Discord) from the start; the gateway logs in once
 * Redis and MySQL answer and Discord answers over the network (until then it waits, one line per cause naming
 * DISCORD_API). When Discord refuses the token or the intents, at login or later, it logs one line naming
 * the fix and exits with 78.
 */
import { botIntents } from './gateway/model/bot-intents.js'
import { DiscordRefusedError, refusalLine, type DiscordRefusal } from './gateway/model/discord-refusal.js'
import { ensureDatabase, mysqlCheck } from './mysql/connection.js'
import { createDependencyGauge } from './metrics/dependency-metrics.js'
import { createGatewayMetrics } from './metrics/gateway-metrics.js'
import { startMetricsServer } from './metrics/metrics-server.js'
import { createMetricsRegistry } from './metrics/registry.js'
import { shardsReady } from './gateway/shard-status.js'
import { startGateway, type GatewayRuntime } from './runtime/gateway-runtime.js'
import { announceStarted, CONFIG_REFUSED_EXIT, reportStartFailed, reportWaiting } from './lib/part-started.js'
import { waitForDiscord } from './gateway/discord-reachability.js'
import { runProcess, type ProcessContext } from './runtime/process-context.js'
import { createReadiness, keepCheckingReadiness, partReadyCheck, waitForDependencies } from './health/readiness.js'
import { redisCheck } from './redis/connection.js'
import { openDatabaseLazily, openRedis } from './runtime/storage.js'

async function exitRefused(ctx: ProcessContext, refusal: DiscordRefusal): Promise<never> {
  const { message, fields } = refusalLine(refusal, botIntents(ctx.config.messageContent))
  ctx.log.fatal(fields, message)
  await reportStartFailed(message)
  await ctx.shutdown.run('Discord refused the bot')
  process.exit(CONFIG_REFUSED_EXIT)
}

await runProcess('gateway', async (ctx) => {
  const registry = createMetricsRegistry()
  const gauge = createDependencyGauge(registry)
  const storage = { redis: redisCheck(await openRedis(ctx, 'request', 'health', { wait: false })), mysql: mysqlCheck(openDatabaseLazily(ctx, 1)) }
  let gateway: GatewayRuntime | undefined
  const readiness = createReadiness({ ...storage, discord: async () => gateway !== undefined && shardsReady(gateway.client) }, gauge)
  const metrics = await startMetricsServer(ctx, registry, ctx.config.gatewayMetricsPort, partReadyCheck(readiness, () => gateway !== undefined))
  await waitForDependencies(ctx, createReadiness(storage), () => ensureDatabase(ctx.config.databaseUrl))
  // A Discord the network cannot reach is waited for (one line per cause), not a failed start that serve restarts.
  const stopWaiting = new AbortController()
  ctx.shutdown.register('discord-wait', () => stopWaiting.abort())
  await waitForDiscord({ api: ctx.config.discordApi, log: ctx.log, signal: stopWaiting.signal, onWaiting: reportWaiting })
  if (ctx.shutdown.closing) return
  try {
    gateway = await startGateway(ctx, (presenceEntries) => createGatewayMetrics(registry, { presenceEntries }))
  } catch (err) {
    if (err instanceof DiscordRefusedError) await exitRefused(ctx, err.refusal)
    throw err
  }
  void gateway.refused.then((refusal) => exitRefused(ctx, refusal))
  keepCheckingReadiness(ctx, readiness)
  ctx.log.info({ metricsPort: metrics.port, guilds: gateway.client.guilds.cache.size }, 'gateway metrics listening')
  announceStarted()
})
