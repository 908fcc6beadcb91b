/**
 * Starts the gateway process: opens its clients and hands the gateway (src/gateway/discord-gateway.ts) its stores,
 * services, the audit queue's producer and the bound-code DM consumer.
 */
import type { CodeService } from '../codes/code-service.js'
import { requireBotToken, startDiscordGateway, type DiscordGateway } from '../gateway/discord-gateway.js'
import type { GatewayMetrics } from '../metrics/gateway-metrics.js'
import { createInfractionRows } from '../mysql/infraction-rows.js'
import { createPrivacyRows } from '../mysql/privacy-rows.js'
import { createWatchlistRows } from '../mysql/watchlist-rows.js'
import { JobName, QueueName } from '../queue/names.js'
import { createNotifyConsumer } from '../queue/notify.js'
import { createLogProducer } from '../queue/queues.js'
import { publishGatewayWhitelist } from '../redis/gateway-whitelist.js'
import { createMessageCache } from '../redis/message-cache.js'
import { createPresenceStore } from '../redis/presence-store.js'
import { createReplicaWait } from '../redis/replica-wait.js'
import type { ProcessContext } from './process-context.js'
import { buildCodeService, buildForgetService, buildGuildWhitelist, buildMyDataReader } from './services.js'
import { keepBullHandle, openDatabase, openQueue, openRedis, prepareRedisCopies } from './storage.js'

/** A started gateway, and the code service it acts through. */
export type GatewayRuntime = DiscordGateway & { codes: CodeService }

/** Shard status sink (the gateway metrics); built once the presence count can be read. */
export type GatewayMetricsFactory = (presenceEntries: () => Promise<number>) => GatewayMetrics

/** Starts the gateway and resolves when every shard is ready; rejects with DiscordRefusedError when Discord refuses the bot. */
export async function startGateway(ctx: ProcessContext, metricsFactory?: GatewayMetricsFactory): Promise<GatewayRuntime> {
  const { config, keys, log } = ctx
  requireBotToken(config)
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
  const notifyRedis = await openRedis(ctx, 'worker', 'notify')
  const gateway = await startDiscordGateway(ctx, {
    store,
    whitelist,
    codes,
    forget: buildForgetService(db, cache, redis, keys),
    myData: buildMyDataReader(db, redis, keys, { logRetentionDays: config.logRetentionDays, messageRetentionDays: config.messageRetentionDays, forgetAfterLeaveDays: config.forgetAfterLeaveDays }),
    rows: { infractions: createInfractionRows(db), watchlist: createWatchlistRows(db), privacy: createPrivacyRows(db) },
    messages: createMessageCache(redis, keys),
    // An audit event counts as handed over once REDIS_WRITE_REPLICAS replicas hold it (on the connection that wrote it).
    enqueueAudit: createLogProducer(auditQueue, JobName.Audit, () => auditWait.own('audit')),
    openNotifier: (send) =>
      keepBullHandle(ctx, 'notify', 'consumer:notify', notifyRedis, createNotifyConsumer({ connection: notifyRedis, prefix: keys.bullPrefix, send, log })),
    config,
    log,
    ...(metrics === undefined ? {} : { metrics }),
  })
  return { ...gateway, codes }
}
