/**
 * Builds the gateway process: a sharded discord.js client whose caches hold little more than guilds and channels
 * (presences, members and messages are handled from raw dispatches), the presence sync, slash commands, audit
 * events and the bound-code DM consumer.
 */
import { Client, Events, GatewayDispatchEvents, Options, Status } from 'discord.js'
import type { CodeService } from '../codes/code-service.js'
import { AUDIT_EVENTS, createAuditEvents } from '../gateway/audit-events.js'
import { botIntents, intentBits } from '../gateway/model/bot-intents.js'
import { createBoundNotifier } from '../gateway/bound-notifier.js'
import { guildCommands, USER_COMMANDS } from '../gateway/model/command-definitions.js'
import { createCommandHandler } from '../gateway/command-handler.js'
import { createDirectMessenger } from '../gateway/direct-message.js'
import { commandRegistrationRefusal, DiscordRefusedError, refusalOfClose, refusalOfLoginError, type DiscordRefusal } from '../gateway/model/discord-refusal.js'
import { createPresenceSync, type MembersChunk, type PresenceSync } from '../gateway/presence-sync.js'
import type { GatewayMetrics } from '../metrics/gateway-metrics.js'
import { createInfractionRows } from '../mysql/infraction-rows.js'
import { createWatchlistRows } from '../mysql/watchlist-rows.js'
import { JobName, QueueName } from '../queue/names.js'
import { createNotifyConsumer } from '../queue/notify.js'
import { createLogProducer, createQueue } from '../queue/queues.js'
import { createMessageCache } from '../redis/message-cache.js'
import { publishGatewayWhitelist } from '../redis/gateway-whitelist.js'
import { createPresenceStore } from '../redis/presence-store.js'
import type { ProcessContext } from './process-context.js'
import { buildCodeService, buildGuildWhitelist } from './services.js'
import { watchBull } from '../redis/redis-watch.js'
import { openDatabase, openRedis, prepareRedisCopies } from './storage.js'

/** A started gateway. */
export interface GatewayRuntime {
  client: Client<true>
  sync: PresenceSync
  codes: CodeService
  /** Settles if Discord later refuses the bot for good (token reset: 4004); the process should then exit. */
  refused: Promise<DiscordRefusal>
}

/** True while every shard of `client` is connected and ready (the gateway's Discord readiness). */
export function shardsReady(client: Client): boolean {
  return client.ws.shards.size > 0 && client.ws.shards.every((s) => s.status === Status.Ready)
}

/** Shard status sink (the gateway metrics); built once the presence count can be read. */
export type GatewayMetricsFactory = (presenceEntries: () => Promise<number>) => GatewayMetrics

const PING_REPORT_MS = 15_000

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
  const auditQueue = createQueue(QueueName.Audit, redis, keys.bullPrefix)
  watchBull(ctx.redisWatch, 'gateway', auditQueue)
  ctx.shutdown.register('audit-queue', () => auditQueue.close())

  const client = new Client({
    intents: intentBits(botIntents(config.messageContent)),
    shards: [...config.shardIds],
    shardCount: config.shardCount,
    ...(config.discordApi === '' ? {} : { rest: { api: config.discordApi } }),
    allowedMentions: { parse: [] },
    makeCache: Options.cacheWithLimits({
      MessageManager: 0,
      PresenceManager: 0,
      ReactionManager: 0,
      ReactionUserManager: 0,
      GuildEmojiManager: 0,
      GuildStickerManager: 0,
      GuildScheduledEventManager: 0,
      GuildInviteManager: 0,
      GuildBanManager: 0,
      StageInstanceManager: 0,
      VoiceStateManager: 0,
      ThreadMemberManager: 0,
      AutoModerationRuleManager: 0,
      GuildMemberManager: { maxSize: 0, keepOverLimit: (member) => member.id === member.client.user.id },
      UserManager: { maxSize: 0, keepOverLimit: (user) => user.id === user.client.user.id },
    }),
  })

  const sync = createPresenceSync({
    store,
    gamePlatformName: config.gamePlatformName,
    log,
    requestMembers: (shardId, payload) => client.ws.shards.get(shardId)?.send({ op: 8, d: payload }),
    guilds: () => client.guilds.cache.map((g) => ({ id: g.id, shardId: g.shardId })),
    readyShards: () => client.ws.shards.filter((s) => s.status === Status.Ready).map((s) => s.id),
  })
  const refresh = (userId: string) => {
    sync.refreshUser(userId).catch((err: Error) => log.warn({ err: err.message, userId }, 'presence refresh failed'))
  }
  const resync = (shardId: number) => {
    sync.refreshShard(shardId).catch((err: Error) => log.warn({ err: err.message, shard: shardId }, 'presence resync failed'))
  }

  client.ws.on(GatewayDispatchEvents.PresenceUpdate, (d: Parameters<PresenceSync['onPresenceUpdate']>[0], shardId: number) => {
    sync.onPresenceUpdate(d, shardId).catch((err: Error) => log.warn({ err: err.message }, 'presence write failed'))
  })
  client.ws.on(GatewayDispatchEvents.GuildMembersChunk, (d: MembersChunk) => sync.onMembersChunk(d))
  client.on(Events.ShardReady, resync)
  client.on(Events.ShardResume, resync)
  if (metrics !== undefined) {
    for (const shard of config.shardIds) metrics.setShardReady(shard, false)
    client.on(Events.ShardReady, (shard) => metrics.setShardReady(shard, true))
    client.on(Events.ShardResume, (shard) => metrics.setShardReady(shard, true))
    client.on(Events.ShardDisconnect, (_event, shard) => metrics.setShardReady(shard, false))
    client.on(Events.ShardReconnecting, (shard) => metrics.setShardReady(shard, false))
    const pings = setInterval(() => client.ws.shards.forEach((s) => metrics.setShardPing(s.id, s.ping)), PING_REPORT_MS)
    pings.unref()
    ctx.shutdown.register('shard-pings', () => clearInterval(pings))
  }

  const audit = createAuditEvents({
    messages: createMessageCache(redis, keys),
    isWhitelisted: whitelist.isWhitelisted,
    messageContent: config.messageContent,
    retentionDays: config.messageRetentionDays,
    enqueue: createLogProducer(auditQueue, JobName.Audit),
    log,
  })
  for (const t of ['MESSAGE_CREATE', ...AUDIT_EVENTS]) {
    client.ws.on(t as GatewayDispatchEvents, (d: Record<string, unknown>) => {
      audit(t, d).catch((err: Error) => log.error({ err: err.message, event: t }, 'audit event lost'))
    })
  }
  client.ws.on(GatewayDispatchEvents.GuildMemberRemove, (d: { user?: { id: string } }) => {
    if (d.user !== undefined) refresh(d.user.id)
  })

  client.on(
    Events.InteractionCreate,
    createCommandHandler({
      codes,
      infractions: createInfractionRows(db),
      watchlist: createWatchlistRows(db),
      staffGuildIds: config.staffGuildIds,
      staffRoleId: config.staffRoleId, gamePlatformName: config.gamePlatformName,
      log,
      sendDm: createDirectMessenger(client, log),
      onHolderChanged: refresh,
    }),
  )

  // Every guild's own list is overwritten, so a /staff left from an older deployment disappears from other guilds.
  // One guild refusing (its admin invited the bot without applications.commands) must not stop the gateway for all.
  const registerCommands = async (guildId?: string): Promise<void> => {
    const app = client.application
    if (app === null) return
    try {
      if (guildId === undefined) await app.commands.set([...USER_COMMANDS] as never)
      else await app.commands.set(guildCommands(guildId, config.staffGuildIds, config.commandScope) as never, guildId)
    } catch (err) {
      const refusal = commandRegistrationRefusal(err)
      if (refusal !== null) log.warn({ guild: guildId ?? 'global', code: (err as { code?: unknown }).code }, refusal)
      else log.warn({ err: (err as Error).message, guild: guildId ?? 'global' }, 'command registration failed')
    }
  }
  client.on(Events.GuildCreate, (guild) => {
    void registerCommands(guild.id)
    resync(guild.shardId)
  })
  // 4004 and 4014 end the shard for good (discord.js does not reconnect): the process reports it once and exits.
  let refusal: DiscordRefusal | null = null
  let onRefused: (found: DiscordRefusal) => void = () => undefined
  const refused = new Promise<DiscordRefusal>((resolve) => (onRefused = resolve))
  client.on(Events.ShardDisconnect, (event, shardId) => {
    const found = refusalOfClose(event.code)
    if (found === null) return log.warn({ shard: shardId, code: event.code }, 'shard disconnected')
    refusal ??= found
    onRefused(refusal)
  })
  client.on(Events.ShardReconnecting, (shardId) => log.warn({ shard: shardId }, 'shard reconnecting'))
  client.on(Events.Error, (err) => log.error({ err: err.message }, 'discord client error'))

  const notifyConnection = await openRedis(ctx, 'worker', 'notify')
  const notifier = createNotifyConsumer({
    connection: notifyConnection,
    prefix: keys.bullPrefix,
    concurrency: 4,
    send: createBoundNotifier(client, config.gamePlatformName),
  })
  notifier.on('failed', (job, err) => log.warn({ jobId: job?.id, err: err.message }, 'bound notice failed'))
  watchBull(ctx.redisWatch, 'notify', notifier)

  ctx.shutdown.register('discord', async () => {
    await notifier.close()
    await sync.stop([...config.shardIds])
    await client.destroy()
  })

  const ready = new Promise<Client<true>>((resolve) => client.once(Events.ClientReady, resolve))
  const loggedIn = client.login(config.discordToken).then(
    () => ready,
    (err: unknown) => {
      // A 4014 during login also rejects it, with a bare "Used disallowed intents": the close code says more.
      const found = refusal ?? refusalOfLoginError(err)
      throw found === null ? err : new DiscordRefusedError(found)
    },
  )
  const readyClient = await Promise.race([
    loggedIn,
    refused.then((found) => {
      throw new DiscordRefusedError(found)
    }),
  ])
  if (config.commandScope === 'global') await registerCommands()
  await Promise.all(readyClient.guilds.cache.map((g) => registerCommands(g.id)))
  sync.startHeartbeat()
  await sync.beat()
  void notifier.run()
  log.info({ shards: config.shardIds, shardCount: config.shardCount, guilds: readyClient.guilds.cache.size, user: readyClient.user.tag }, 'gateway ready')
  return { client: readyClient, sync, codes, refused }
}
