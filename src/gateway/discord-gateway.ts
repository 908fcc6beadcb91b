/**
 * The gateway built from its pieces over the adapters its process hands it: the discord.js client (client options),
 * presence sync and refresh, the leave expiry, audit events, slash commands and their registration, the bound-code
 * DMs, event routes and refusals. It owns the order: log in, register the commands of every guild, start the
 * heartbeat, then the DM consumer and the expiry sweep; at shutdown the DM consumer closes before the client, and the
 * shard marks are cleared (or left to lapse when Redis is down).
 */
import { Client } from 'discord.js'
import type { CodeService } from '../codes/code-service.js'
import type { Config } from '../config.js'
import type { Logger } from '../lib/logger.js'
import type { ProcessBasics } from '../lib/process-basics.js'
import type { GatewayMetrics } from '../metrics/gateway-metrics.js'
import type { InfractionRows } from '../mysql/infraction-rows.js'
import type { WatchlistRows } from '../mysql/watchlist-rows.js'
import type { ForgetService } from '../privacy/forget-service.js'
import { createLeaveExpiry, type LeaveExpiry, type LeaveExpiryDeps } from '../privacy/leave-expiry.js'
import type { LogJob } from '../queue/model/jobs.js'
import type { MessageCache } from '../redis/message-cache.js'
import type { PresenceStore } from '../redis/presence-store.js'
import { createAuditEvents } from './audit-events.js'
import { createBoundNotifier } from './bound-notifier.js'
import { createClientOptions } from './client-options.js'
import { createCommandHandler, type CommandHandlerDeps } from './command-handler.js'
import { createCommandRegistration } from './command-registration.js'
import { createDirectMessenger } from './direct-message.js'
import { createPresenceRefresh, routeGatewayEvents } from './event-routes.js'
import type { GuildWhitelist } from './guild-whitelist.js'
import type { DiscordRefusal } from './model/discord-refusal.js'
import { createPresenceSync, type PresenceSync } from './presence-sync.js'
import { watchRefusals } from './refusal-watch.js'
import { readyShardIds, reportShardStatus } from './shard-status.js'

/** What the gateway is built over: its stores and services, the audit queue's producer, and the DM consumer's opener. */
export interface DiscordGatewayDeps {
  store: PresenceStore
  whitelist: Pick<GuildWhitelist, 'isWhitelisted'>
  codes: CodeService
  forget: ForgetService
  myData: CommandHandlerDeps['myData']
  rows: { infractions: InfractionRows; watchlist: WatchlistRows; privacy: LeaveExpiryDeps['rows'] }
  /** The message cache audit events read edits and deletes against. */
  messages: MessageCache
  /** Adds one audit job (resolves once it is handed over). */
  enqueueAudit(job: LogJob, jobId: string): Promise<void>
  /** Opens the bound-code DM consumer over `send` (not yet running), its close registered by the opener. */
  openNotifier(send: ReturnType<typeof createBoundNotifier>): { run(): Promise<void> }
  config: Config
  log: Logger
  metrics?: GatewayMetrics
}

/** A started gateway. */
export interface DiscordGateway {
  client: Client<true>
  sync: PresenceSync
  /** The leave expiry (its sweep runs hourly; tests call it). */
  expiry: LeaveExpiry
  /** Settles if Discord later refuses the bot for good (token reset: 4004); the process should then exit. */
  refused: Promise<DiscordRefusal>
}

/** Refuses to start a gateway without a bot token. */
export function requireBotToken(config: Pick<Config, 'discordToken'>): void {
  if (config.discordToken === '') throw new Error('DISCORD_TOKEN is not set: the gateway needs a bot token (npm start runs the sandbox instead)')
}

/** Builds the gateway, logs in and resolves when every shard is ready; rejects with DiscordRefusedError when Discord refuses the bot. */
export async function startDiscordGateway(basics: ProcessBasics, deps: DiscordGatewayDeps): Promise<DiscordGateway> {
  const { config, log, metrics } = deps
  const client = new Client(createClientOptions(config))
  const sync = createPresenceSync({
    store: deps.store,
    gamePlatformName: config.gamePlatformName,
    log,
    requestMembers: (shardId, payload) => client.ws.shards.get(shardId)?.send({ op: 8, d: payload }),
    guilds: () => client.guilds.cache.map((g) => ({ id: g.id, shardId: g.shardId })),
    readyShards: () => readyShardIds(client),
  })
  const refresh = createPresenceRefresh(sync, log)
  const seesEveryGuild = config.shardIds.length === config.shardCount
  const expiry = createLeaveExpiry({ rows: deps.rows.privacy, forget: deps.forget, memberOfAny: sync.memberOfAny, afterDays: config.forgetAfterLeaveDays, seesEveryGuild, log })
  if (metrics !== undefined) basics.shutdown.register('shard-pings', reportShardStatus(client, metrics, config.shardIds))
  const registration = createCommandRegistration({ commands: () => client.application?.commands ?? null, config, log })
  routeGatewayEvents(client, {
    sync,
    refresh,
    audit: createAuditEvents({
      messages: deps.messages,
      isWhitelisted: deps.whitelist.isWhitelisted,
      messageContent: config.messageContent,
      retentionDays: config.messageRetentionDays,
      enqueue: deps.enqueueAudit,
      log,
    }),
    interactions: createCommandHandler({
      codes: deps.codes,
      infractions: deps.rows.infractions,
      watchlist: deps.rows.watchlist,
      staffGuildIds: config.staffGuildIds,
      staffRoleId: config.staffRoleId,
      gamePlatformName: config.gamePlatformName,
      log,
      sendDm: createDirectMessenger(client, log),
      forget: deps.forget,
      myData: deps.myData,
      onHolderChanged: refresh.user,
    }),
    expiry,
    registerCommands: registration.register,
    log,
  })
  const refusals = watchRefusals(client, log)
  basics.shutdown.register('discord', async () => {
    expiry.stop()
    // With Redis down the shards' liveness marks cannot be cleared; they lapse by themselves.
    await sync.stop([...config.shardIds]).catch((err: Error) => log.warn({ err: err.message }, 'shard marks not cleared (Redis is down); they lapse by themselves'))
    await client.destroy()
  })
  // Opened after the client's close is registered, so it closes first: no DM is sent through a destroyed client.
  const notifier = deps.openNotifier(createBoundNotifier(client, config.gamePlatformName))

  const readyClient = await refusals.logIn(config.discordToken)
  await registration.registerAll(readyClient.guilds.cache.map((g) => g.id))
  sync.startHeartbeat()
  await sync.beat()
  void notifier.run()
  expiry.start()
  log.info({ shards: config.shardIds, shardCount: config.shardCount, guilds: readyClient.guilds.cache.size, user: readyClient.user.tag }, 'gateway ready')
  return { client: readyClient, sync, expiry, refused: refusals.refused }
}
