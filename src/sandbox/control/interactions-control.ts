/*
 * Control of interactions: `POST /control/commands` sends a slash command and `POST /control/components` a button or
 * select click as INTERACTION_CREATE (with `resolved` users, members, roles and channels, as discord.js option getters
 * read them), then waits for the bot's final answer through the fake REST callbacks; `GET /control/interactions`
 * lists what was sent and answered.
 */
import type { SandboxContext } from '../context.js'
import { controlError, json, type Reply } from '../http-reply.js'
import type { RequestInfo } from '../http-router.js'
import type { InteractionRecord } from '../interactions.js'
import { messageEventData } from '../messaging.js'
import { channelPayload, interactionMemberPayload, rolePayload, userPayload, userPayloadById } from '../payloads.js'
import { isObject } from '../read-body.js'
import { isSnowflake } from '../snowflakes.js'
import type { ChannelRecord, GuildRecord } from '../world-records.js'
import { ALL_PERMISSIONS } from '../world.js'
import { bodyOf, controlRoute, guildFrom, isGuild, str, type Body, type ControlRoute } from './control-kit.js'

/** How long `/control/commands` and `/control/components` wait for the bot by default. */
export const DEFAULT_REPLY_TIMEOUT_MS = 5000

function collectResolved(ctx: SandboxContext, guild: GuildRecord | null, options: unknown[], into: Record<string, Record<string, unknown>>): void {
  for (const option of options) {
    if (!isObject(option)) continue
    if (Array.isArray(option.options)) collectResolved(ctx, guild, option.options, into)
    const value = option.value
    if (typeof value !== 'string') continue
    if (option.type === 6 || option.type === 9) {
      const user = ctx.world.users.get(value)
      if (user) {
        ;(into.users ??= {})[value] = userPayload(user)
        const member = guild?.members.get(value)
        if (guild && member) {
          const { user: _user, ...rest } = interactionMemberPayload(ctx.world, guild, member)
          ;(into.members ??= {})[value] = rest
        }
      }
    }
    if ((option.type === 8 || option.type === 9) && guild) {
      const role = guild.roles.find((r) => r.id === value)
      if (role) (into.roles ??= {})[value] = rolePayload(role)
    }
    if (option.type === 7) {
      const channel = ctx.world.channels.get(value)
      if (channel) (into.channels ??= {})[value] = { ...channelPayload(ctx.world, channel), permissions: ALL_PERMISSIONS.toString() }
    }
  }
}

interface InteractionTarget {
  user: { id: string }
  guild: GuildRecord | null
  channel: ChannelRecord
}

function interactionBase(ctx: SandboxContext, record: InteractionRecord, target: InteractionTarget): Record<string, unknown> {
  const { guild, channel } = target
  const base: Record<string, unknown> = {
    id: record.id,
    application_id: ctx.world.applicationId,
    token: record.token,
    version: 1,
    channel_id: channel.id,
    channel: channel.type === 1 ? channelPayload(ctx.world, channel) : { ...channelPayload(ctx.world, channel), permissions: ALL_PERMISSIONS.toString() },
    app_permissions: ALL_PERMISSIONS.toString(),
    locale: 'en-US',
    entitlements: [],
    authorizing_integration_owners: {},
    context: guild ? 0 : 1,
    attachment_size_limit: 10 * 1024 * 1024,
  }
  const member = guild?.members.get(target.user.id)
  if (guild && member) {
    base.guild_id = guild.id
    base.guild_locale = 'en-US'
    base.guild = { id: guild.id, locale: 'en-US', features: [] }
    base.member = interactionMemberPayload(ctx.world, guild, member)
  } else {
    base.user = userPayloadById(ctx.world, target.user.id)
  }
  return base
}

async function sendInteraction(ctx: SandboxContext, record: InteractionRecord, payload: Record<string, unknown>, timeoutMs: number): Promise<Reply> {
  const routeTarget = { guildId: record.guildId }
  if (!ctx.gateway.hasSessionFor(routeTarget)) {
    const shard = record.guildId ? ctx.world.shardOf(record.guildId) : 0
    return controlError(503, `no gateway session for shard ${shard}`)
  }
  ctx.interactions.add(record)
  ctx.gateway.dispatch('INTERACTION_CREATE', payload, routeTarget)
  const reply = await ctx.interactions.wait(record, timeoutMs)
  return reply ? json(200, { ...reply, interaction_id: record.id }) : controlError(504, 'no reply')
}

function timeoutOf(body: Body): number {
  return typeof body.timeout_ms === 'number' && body.timeout_ms > 0 ? body.timeout_ms : DEFAULT_REPLY_TIMEOUT_MS
}

async function runCommand(req: RequestInfo, ctx: SandboxContext): Promise<Reply> {
  const body = bodyOf(req)
  if (!isSnowflake(body.user_id)) return controlError(400, 'user_id must be a snowflake string')
  const name = str(body.name)
  if (!name) return controlError(400, 'name is required')
  if (body.options !== undefined && !Array.isArray(body.options)) return controlError(400, 'options must be an array')
  const user = ctx.world.users.get(body.user_id)
  if (!user) return controlError(404, `unknown user ${body.user_id}`)
  let guild: GuildRecord | null = null
  let channel: ChannelRecord
  if (body.dm === true) {
    channel = ctx.world.dmChannel(user.id)
  } else {
    const found = guildFrom(ctx, body.guild_id)
    if (!isGuild(found)) return found
    guild = found
    if (!guild.members.has(user.id)) return controlError(404, `user ${user.id} is not a member of ${guild.id}`)
    const channelId = body.channel_id ?? guild.channelIds[0]
    const picked = typeof channelId === 'string' ? ctx.world.channels.get(channelId) : undefined
    if (!picked || picked.guildId !== guild.id) return controlError(404, `unknown channel ${String(channelId)} in ${guild.id}`)
    channel = picked
  }
  const registered = (guild ? ctx.world.guildCommands.get(guild.id) ?? [] : []).concat(ctx.world.globalCommands)
  const command = registered.find((c) => c.name === name && (c.type ?? 1) === 1)
  const record: InteractionRecord = {
    id: ctx.snowflakes.next(),
    token: ctx.randomToken(96),
    kind: 'command',
    name,
    userId: user.id,
    guildId: guild?.id ?? null,
    channelId: channel.id,
    sourceMessageId: null,
    callbackType: null,
    originalId: null,
    followupIds: [],
    final: null,
    createdAt: ctx.now(),
  }
  const data: Record<string, unknown> = { id: command?.id ?? ctx.snowflakes.next(), name, type: 1 }
  if (Array.isArray(body.options)) {
    data.options = body.options
    const resolved: Record<string, Record<string, unknown>> = {}
    collectResolved(ctx, guild, body.options, resolved)
    if (Object.keys(resolved).length > 0) data.resolved = resolved
  }
  if (guild && command?.guild_id) data.guild_id = guild.id
  const payload = { ...interactionBase(ctx, record, { user, guild, channel }), type: 2, data }
  return sendInteraction(ctx, record, payload, timeoutOf(body))
}

async function clickComponent(req: RequestInfo, ctx: SandboxContext): Promise<Reply> {
  const body = bodyOf(req)
  if (!isSnowflake(body.user_id)) return controlError(400, 'user_id must be a snowflake string')
  const customId = str(body.custom_id)
  if (!customId) return controlError(400, 'custom_id is required')
  const user = ctx.world.users.get(body.user_id)
  if (!user) return controlError(404, `unknown user ${body.user_id}`)
  const message = typeof body.message_id === 'string' ? ctx.world.messages.get(body.message_id) : undefined
  if (!message) return controlError(404, `unknown message ${String(body.message_id)}`)
  const channelId = typeof body.channel_id === 'string' ? body.channel_id : message.message.channel_id
  const channel = ctx.world.channels.get(channelId)
  if (!channel) return controlError(404, `unknown channel ${channelId}`)
  let guild: GuildRecord | null = null
  if (channel.guildId) {
    guild = ctx.world.guilds.get(channel.guildId) ?? null
    if (!guild?.members.has(user.id)) return controlError(404, `user ${user.id} is not a member of ${channel.guildId}`)
  }
  const record: InteractionRecord = {
    id: ctx.snowflakes.next(),
    token: ctx.randomToken(96),
    kind: 'component',
    name: customId,
    userId: user.id,
    guildId: guild?.id ?? null,
    channelId: channel.id,
    sourceMessageId: message.message.id,
    callbackType: null,
    originalId: null,
    followupIds: [],
    final: null,
    createdAt: ctx.now(),
  }
  const data: Record<string, unknown> = { custom_id: customId, component_type: typeof body.component_type === 'number' ? body.component_type : 2 }
  if (Array.isArray(body.values)) data.values = body.values
  const payload = {
    ...interactionBase(ctx, record, { user, guild, channel }),
    type: 3,
    data,
    message: messageEventData(ctx, message),
  }
  return sendInteraction(ctx, record, payload, timeoutOf(body))
}


function listInteractions(ctx: SandboxContext): Reply {
  return json(200, ctx.interactions.list().map((r) => ({
    id: r.id,
    kind: r.kind,
    name: r.name,
    user_id: r.userId,
    guild_id: r.guildId,
    channel_id: r.channelId,
    callback_type: r.callbackType,
    final: r.final,
    original_id: r.originalId,
    followup_ids: r.followupIds,
  })))
}

/** The interaction routes. */
export function interactionControlRoutes(): ControlRoute[] {
  return [
    controlRoute('POST', '/commands', runCommand),
    controlRoute('POST', '/components', clickComponent),
    controlRoute('GET', '/interactions', (_req, ctx) => listInteractions(ctx)),
  ]
}
