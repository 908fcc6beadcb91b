/**
 * Starts the gateway process: opens its clients, builds the gateway from its pieces (src/gateway/: client options,
 * presence sync, audit events, slash commands and their registration, the bound-code DM consumer, event routes,
 * refusals), logs in and registers the shutdown.
 */
import { Client } from 'discord.js'
import type { CodeService } from '../codes/code-service.js'
import { createAuditEvents } from '../gateway/audit-events.js'
import { createBoundNotifier } from '../gateway/bound-notifier.js'
import { createClientOptions } from '../gateway/client-options.js'
import { createCommandHandler } from '../gateway/command-handler.js'
import { createCommandRegistration } from '../gateway/command-registration.js'
import { createDirectMessenger } from '../gateway/direct-message.js'
import { createPresenceRefresh, routeGatewayEvents } from '../gateway/event-routes.js'
import type { DiscordRefusal } from '../gateway/model/discord-refusal.js'
import { createPresenceSync, type PresenceSync } from '../gateway/presence-sync.js'
import { watchRefusals } from '../gateway/refusal-watch.js'
import { readyShardIds, reportShardStatus } from '../gateway/shard-status.js'
import type { GatewayMetrics } from '../metrics/gateway-metrics.js'
import { createInfractionRows } from '../mysql/infraction-rows.js'
import { createWatchlistRows } from '../mysql/watchlist-rows.js'
import { JobName, QueueName } from '../queue/names.js'
import { createNotifyConsumer } from '../queue/notify.js'
import { closeQueueHandles, createLogProducer } from '../queue/queues.js'
import { publishGatewayWhitelist } from '../redis/gateway-whitelist.js'
import { createMessageCache } from '../redis/message-cache.js'
import { createPresenceStore } from '../redis/presence-store.js'
import { watchBull } from '../redis/redis-watch.js'
import type { ProcessContext } from './process-context.js'
import { buildCodeService, buildForgetService, buildGuildWhitelist, buildMyDataReader } from './services.js'
import { openDatabase, openQueue, openRedis, prepareRedisCopies } from './storage.js'
import { createReplicaWait } from '../redis/replica-wait.js'
import { createLeaveExpiry, type LeaveExpiry } from '../privacy/leave-expiry.js'
import { createPrivacyRows } from '../mysql/privacy-rows.js'

/** A started gateway. */
export interface GatewayRuntime {
  client: Client<true>
  sync: PresenceSync
  codes: CodeService
  /** The leave expiry (its sweep runs hourly; tests call it). */
  expiry: LeaveExpiry
  /** Settles if Discord later refuses the bot for good (token reset: 4004); the process should then exit. */
  refused: Promise<DiscordRefusal>
}

/** Shard status sink (the gateway metrics); built once the presence count can be read. */
export type GatewayMetricsFactory = (presenceEntries: () => Promise<number>) => GatewayMetrics

/** Starts the gateway and resolves when every shard is ready; rejects with DiscordRefusedError when Discord refuses the bot. */
export async function startGateway(ctx: ProcessContext, metricsFactory?: GatewayMetricsFactory): Promise<GatewayRuntime> {
  const { config, keys, log } = ctx
  if (config.discordToken === '') throw new Error('DISCORD_TOKEN is not set: the gateway needs a bot token (npm start runs the sandbox instead)')
  const db = await openDatabase(ctx, 5)
  const redis = await openRedis(ctx, 'request', 'gateway')
  const cache = await prepareRedisCopies(ctx, db, redis)
  const whitelist = buildGuildWhitelist(db, redis, keys, config.guildWhitelist)
  await whitelist.sync()
  // GUILD_WHITELIST lives only in this process's memory: publish it, so `guilds list` shows what is really checked.
  await publishGatewayWhitelist(redis, keys, { guilds: [...config.guildWhitelist], shards: [...config.shardIds], shardCount: config.shardCount, at: new Date() })
  const codes = buildCodeService(db, cache)
  const store = createPresenceStore(redis, keys)
  const metrics = metricsFactory?.(() => store.size())
  // A connection of its own: a WAIT holds back every later command of its connection, and presence writes must not wait.
  const auditRedis = await openRedis(ctx, 'request', 'audit')
  const auditQueue = openQueue(ctx, auditRedis, QueueName.Audit, 'audit', 'audit-queue')
  const auditWait = createReplicaWait(auditRedis, keys.replicaMark, {
    replicas: config.redisWriteReplicas,
    timeoutMs: config.redisWriteTimeoutMs,
    log,
    onShortfall: () => metrics?.replicaShortfall?.('audit'),
  })

  const client = new Client(createClientOptions(config))
  const sync = createPresenceSync({
    store,
    gamePlatformName: config.gamePlatformName,
    log,
    requestMembers: (shardId, payload) => client.ws.shards.get(shardId)?.send({ op: 8, d: payload }),
    guilds: () => client.guilds.cache.map((g) => ({ id: g.id, shardId: g.shardId })),
    readyShards: () => readyShardIds(client),
  })
  const refresh = createPresenceRefresh(sync, log)
  const forget = buildForgetService(db, cache, redis, keys)
  const expiry = createLeaveExpiry({ rows: createPrivacyRows(db), forget, memberOfAny: sync.memberOfAny, afterDays: config.forgetAfterLeaveDays, seesEveryGuild: config.shardIds.length === config.shardCount, log })
  if (metrics !== undefined) ctx.shutdown.register('shard-pings', reportShardStatus(client, metrics, config.shardIds))
  const registration = createCommandRegistration({ commands: () => client.application?.commands ?? null, config, log })
  routeGatewayEvents(client, {
    sync,
    refresh,
    audit: createAuditEvents({
      messages: createMessageCache(redis, keys),
      isWhitelisted: whitelist.isWhitelisted,
      messageContent: config.messageContent,
      retentionDays: config.messageRetentionDays,
      // An audit event counts as handed over once REDIS_WRITE_REPLICAS replicas hold it (on the connection that wrote it).
      enqueue: createLogProducer(auditQueue, JobName.Audit, () => auditWait.own('audit')),
      log,
    }),
    interactions: createCommandHandler({
      codes,
      infractions: createInfractionRows(db),
      watchlist: createWatchlistRows(db),
      staffGuildIds: config.staffGuildIds,
      staffRoleId: config.staffRoleId,
      gamePlatformName: config.gamePlatformName,
      log,
      sendDm: createDirectMessenger(client, log),
      forget,
      myData: buildMyDataReader(db, redis, keys, { logRetentionDays: config.logRetentionDays, messageRetentionDays: config.messageRetentionDays, forgetAfterLeaveDays: config.forgetAfterLeaveDays }),
      onHolderChanged: refresh.user,
    }),
    expiry,
    registerCommands: registration.register,
    log,
  })
  const refusals = watchRefusals(client, log)

  const notifyRedis = await openRedis(ctx, 'worker', 'notify')
  const notifier = createNotifyConsumer({
    connection: notifyRedis,
    prefix: keys.bullPrefix,
    send: createBoundNotifier(client, config.gamePlatformName),
    log,
  })
  watchBull(ctx.redisWatch, 'notify', notifier)
  ctx.shutdown.register('discord', async () => {
    expiry.stop()
    await closeQueueHandles([notifier], () => notifyRedis.status === 'ready')
    // With Redis down the shards' liveness marks cannot be cleared; they lapse by themselves.
    await sync.stop([...config.shardIds]).catch((err: Error) => log.warn({ err: err.message }, 'shard marks not cleared (Redis is down); they lapse by themselves'))
    await client.destroy()
  })

  const readyClient = await refusals.logIn(config.discordToken)
  await registration.registerAll(readyClient.guilds.cache.map((g) => g.id))
  sync.startHeartbeat()
  await sync.beat()
  void notifier.run()
  expiry.start()
  log.info({ shards: config.shardIds, shardCount: config.shardCount, guilds: readyClient.guilds.cache.size, user: readyClient.user.tag }, 'gateway ready')
  return { client: readyClient, sync, codes, expiry, refused: refusals.refused }
}
