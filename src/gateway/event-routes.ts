/**
 * Which Discord event goes where in the gateway: presences and member chunks (raw dispatches) to the presence sync,
 * a shard that becomes ready or resumes to a resync of its guilds, a member who leaves to a refresh of their
 * presence (and to the leave expiry: a member in no guild of the bot any more), a member who joins to the leave
 * expiry (they are back), the audited dispatches to the audit events, interactions to the command handler, a guild the bot joins
 * to its command registration and a resync. A failed presence write, refresh or audit event is logged, never
 * thrown into discord.js.
 */
import { Events, GatewayDispatchEvents, type Client, type Interaction } from 'discord.js'
import type { Logger } from '../lib/logger.js'
import { AUDIT_EVENTS } from './audit-events.js'
import type { MembersChunk, PresenceSync } from './presence-sync.js'

/** Refreshes started in the background, their failure logged as a warning. */
export interface PresenceRefresh {
  /** Re-reads one user's presence (they got a code, changed hands or left a guild). */
  user(userId: string): void
  /** Resyncs one shard's guilds (it became ready or resumed, or the bot joined a guild on it). */
  shard(shardId: number): void
}

/** Creates the background refreshes over the presence sync. */
export function createPresenceRefresh(sync: PresenceSync, log: Logger): PresenceRefresh {
  return {
    user(userId) {
      sync.refreshUser(userId).catch((err: Error) => log.warn({ err: err.message, userId }, 'presence refresh failed'))
    },
    shard(shardId) {
      sync.refreshShard(shardId).catch((err: Error) => log.warn({ err: err.message, shard: shardId }, 'presence resync failed'))
    },
  }
}

/** Where the routed events go. */
export interface GatewayRoutes {
  sync: PresenceSync
  refresh: PresenceRefresh
  /** The audit events handler (gateway/audit-events.ts). */
  audit(t: string, d: Record<string, unknown>): Promise<void>
  /** The interaction listener (gateway/command-handler.ts). */
  interactions(interaction: Interaction): Promise<void>
  /** The leave expiry (privacy/leave-expiry.ts): members leaving and joining guilds. */
  expiry: { left(userId: string): Promise<void>; joined(userId: string): Promise<void> }
  /** Registers the commands of a guild the bot joined (gateway/command-registration.ts). */
  registerCommands(guildId: string): Promise<void>
  log: Logger
}

/** Routes `client`'s events; call once, before logging in. */
export function routeGatewayEvents(client: Client, routes: GatewayRoutes): void {
  const { sync, refresh, log } = routes
  client.ws.on(GatewayDispatchEvents.PresenceUpdate, (d: Parameters<PresenceSync['onPresenceUpdate']>[0], shardId: number) => {
    sync.onPresenceUpdate(d, shardId).catch((err: Error) => log.warn({ err: err.message }, 'presence write failed'))
  })
  client.ws.on(GatewayDispatchEvents.GuildMembersChunk, (d: MembersChunk) => sync.onMembersChunk(d))
  client.on(Events.ShardReady, refresh.shard)
  client.on(Events.ShardResume, refresh.shard)
  for (const t of ['MESSAGE_CREATE', ...AUDIT_EVENTS]) {
    client.ws.on(t as GatewayDispatchEvents, (d: Record<string, unknown>) => {
      routes.audit(t, d).catch((err: Error) => log.error({ err: err.message, event: t }, 'audit event lost'))
    })
  }
  client.ws.on(GatewayDispatchEvents.GuildMemberRemove, (d: { user?: { id: string } }) => {
    if (d.user === undefined) return
    const userId = d.user.id
    refresh.user(userId)
    routes.expiry.left(userId).catch((err: Error) => log.warn({ err: err.message, userId }, 'leave not recorded'))
  })
  client.ws.on(GatewayDispatchEvents.GuildMemberAdd, (d: { user?: { id: string } }) => {
    if (d.user === undefined) return
    const userId = d.user.id
    routes.expiry.joined(userId).catch((err: Error) => log.warn({ err: err.message, userId }, 'return not recorded'))
  })
  client.on(Events.InteractionCreate, routes.interactions)
  client.on(Events.GuildCreate, (guild) => {
    void routes.registerCommands(guild.id)
    refresh.shard(guild.shardId)
  })
  client.on(Events.ShardReconnecting, (shardId) => log.warn({ shard: shardId }, 'shard reconnecting'))
  client.on(Events.Error, (err) => log.error({ err: err.message }, 'discord client error'))
}
