/*
 * Control API of the sandbox: JSON in, JSON out, no auth, under /control. Errors are `{error: string}`.
 * Default world (fixed ids, see DefaultIds in world.ts): application and bot user 100000000000000100; guild
 * 100000000000000001 "Sandbox" (or SandboxOptions.whitelistedGuildId) with channels general ...011, server-log ...012,
 * ingame-log ...013, moderation-log ...014, roles @everyone (= guild id), Staff ...021 and the bot's managed role ...022.
 * Guilds added later get fresh snowflakes and the same channel and role set.
 *
 * GET    /control/state                 {applicationId, botUserId, defaultGuildId, staffRoleId, url, apiBase, robloxBase,
 *                                        gatewayUrl, guilds: [{id, name, shard, staffRoleId, channels: [{id, name}],
 *                                        roles: [{id, name}], memberCount}], commands: {global, guild: {[id]: [...]}},
 *                                        shards: [{id, connected, sessionId, seq}]}
 * POST   /control/guilds                {id?, name, shard?} -> the guild as in /state (+ sent); GUILD_CREATE to its shard.
 *                                        `shard` picks a fresh id routed to that shard.
 * POST   /control/members               {id, username, global_name?, nick?, guild_id?, roles?, permissions?}
 *                                        -> {created, member, sent}; GUILD_MEMBER_ADD, or GUILD_MEMBER_UPDATE if present.
 * DELETE /control/members               {id, guild_id?} -> {sent}; GUILD_MEMBER_REMOVE.
 * POST   /control/members/bulk          {guild_id?, members: [{id, username, global_name?, roles?}],
 *                                        presences?: [{user_id, status, activities}]} -> {added, updated, total, presences}.
 *                                        Dispatches nothing: the members show in GUILD_CREATE and member chunks.
 * POST   /control/presence              {user_id, status: online|idle|dnd|offline|invisible, activities?, guild_id?}
 *                                        -> {sent, shards}: one PRESENCE_UPDATE per guild of the user (or guild_id),
 *                                        counted per receiving session; `shards` holds each receiver's shard id.
 * POST   /control/commands              {user_id, name, options?, guild_id?, channel_id?, dm?, timeout_ms?}
 *                                        sends a slash command INTERACTION_CREATE and waits for the bot's final answer:
 *                                        200 {type, content, embeds, components, flags, message_id, interaction_id}
 *                                        (flags & 64 = ephemeral) or 504 {error: 'no reply'}; 503 if no session gets it.
 * POST   /control/components            {user_id, custom_id, message_id, channel_id?, component_type?, values?, timeout_ms?}
 *                                        a button (or select) click on a stored message; DMs carry `user`, no guild.
 *                                        Answers like /control/commands.
 * GET    /control/interactions          [{id, kind, name, user_id, guild_id, channel_id, callback_type, final,
 *                                        original_id, followup_ids}]
 * POST   /control/dispatch              {t, d, guild_id?, shard?} -> {sent, shards}; sends the event as given.
 * POST   /control/messages              {channel_id | dm: true, author_id, content, embeds?} -> the message; a user's
 *                                        message, dispatched as MESSAGE_CREATE (content blank without MESSAGE_CONTENT).
 * GET    /control/messages              ?channel_id=&webhook_id=&user_id= -> what the bot posted (channel messages,
 *                                        webhook executions, DMs), oldest first: [{id, channel_id, webhook_id?,
 *                                        dm_user_id?, content, embeds, components, allowed_mentions, flags, timestamp,
 *                                        edited_timestamp, author}]. Interaction responses are in /control/interactions.
 * POST   /control/webhooks              {channel_id, name?} -> {id, token, url, channel_id, guild_id}
 * POST   /control/webhooks/:id/fail     {status: 429|404|401|403|500|null, count? (default 1), retry_after? (seconds,
 *                                        default 1)} -> {pending}; the next `count` executions answer `status`.
 * POST   /control/channels/:id/fail     same, for message create/edit/delete in that channel (403 in a DM is 50007).
 * GET    /control/requests              {total, byRoute: {"POST /webhooks/:id/:token 200": n}} (REST and Roblox calls)
 * DELETE /control/requests              resets the counters -> {total: 0, byRoute: {}}
 * POST   /control/disconnect            {shard?, code? (default 4000), invalidate?, reconnect?} -> {ended}.
 *                                        `code` closes the socket; `invalidate` sends op 9 d:false; `reconnect` op 7.
 * POST   /control/roblox-users          {id, name, displayName?} -> the user
 * POST   /control/roblox-fail           {status: number|null} -> {status}; every Roblox call answers it until cleared.
 * POST   /control/reset                 clears members, users, presences, messages, webhooks, failures, counters,
 *                                        interactions and Roblox users; keeps guilds, commands and connections.
 */
import type { SandboxContext } from './context.js'
import { controlError, isObject, json, type Reply, type RequestInfo, type Route } from './http-kit.js'
import type { InteractionRecord } from './interactions.js'
import { controlMessageView, messageEventData, postMessage } from './messaging.js'
import {
  channelPayload,
  clientStatus,
  guildCreatePayload,
  interactionMemberPayload,
  memberPayload,
  rolePayload,
  userPayload,
  userPayloadById,
} from './payloads.js'
import { createWebhook } from './rest-routes.js'
import { isSnowflake } from './snowflakes.js'
import { ALL_PERMISSIONS, type ChannelRecord, type FailureRule, type GuildRecord, type PresenceStatus } from './world.js'

/** How long `/control/commands` and `/control/components` wait for the bot by default. */
export const DEFAULT_REPLY_TIMEOUT_MS = 5000

const STATUSES = new Set(['online', 'idle', 'dnd', 'offline', 'invisible'])

type Body = Record<string, unknown>

const bodyOf = (req: RequestInfo): Body => (isObject(req.body) ? req.body : {})

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null)

function guildFrom(ctx: SandboxContext, value: unknown): GuildRecord | Reply {
  const id = value === undefined || value === null ? ctx.world.defaultGuildId : value
  const guild = typeof id === 'string' ? ctx.world.guilds.get(id) : undefined
  return guild ?? controlError(404, `unknown guild ${String(id)}`)
}

function isGuild(value: GuildRecord | Reply): value is GuildRecord {
  return 'members' in value
}

function guildView(ctx: SandboxContext, guild: GuildRecord): Record<string, unknown> {
  return {
    id: guild.id,
    name: guild.name,
    shard: ctx.world.shardOf(guild.id),
    staffRoleId: guild.staffRoleId,
    channels: guild.channelIds.map((id) => ({ id, name: ctx.world.channels.get(id)?.name ?? '' })),
    roles: guild.roles.map((r) => ({ id: r.id, name: r.name })),
    memberCount: guild.members.size,
  }
}

function state(ctx: SandboxContext): Reply {
  const { world } = ctx
  const urls = ctx.urls()
  return json(200, {
    applicationId: world.applicationId,
    botUserId: world.botUserId,
    defaultGuildId: world.defaultGuildId,
    staffRoleId: world.guilds.get(world.defaultGuildId)?.staffRoleId ?? null,
    ...urls,
    guilds: [...world.guilds.values()].map((g) => guildView(ctx, g)),
    commands: { global: world.globalCommands, guild: Object.fromEntries(world.guildCommands) },
    shards: ctx.gateway.shards(),
  })
}

function addGuild(req: RequestInfo, ctx: SandboxContext): Reply {
  const body = bodyOf(req)
  const name = str(body.name)
  if (!name) return controlError(400, 'name is required')
  if (body.id !== undefined && !isSnowflake(body.id)) return controlError(400, 'id must be a snowflake string')
  if (typeof body.id === 'string' && ctx.world.guilds.has(body.id)) return controlError(409, `guild ${body.id} exists`)
  const shard = body.shard
  if (shard !== undefined && (typeof shard !== 'number' || !Number.isInteger(shard) || shard < 0 || shard >= ctx.world.shardCount)) {
    return controlError(400, `shard must be an integer in [0, ${ctx.world.shardCount})`)
  }
  const input: { id?: string; name: string; shard?: number } = { name }
  if (typeof body.id === 'string') input.id = body.id
  if (typeof shard === 'number') input.shard = shard
  const guild = ctx.world.addGuild(input)
  const result = ctx.gateway.dispatch('GUILD_CREATE', guildCreatePayload(ctx.world, guild, true), { guildId: guild.id })
  return json(200, { ...guildView(ctx, guild), sent: result.sent })
}

function upsertMember(req: RequestInfo, ctx: SandboxContext): Reply {
  const body = bodyOf(req)
  if (!isSnowflake(body.id)) return controlError(400, 'id must be a snowflake string')
  const username = str(body.username) ?? ctx.world.users.get(body.id)?.username ?? null
  if (!username) return controlError(400, 'username is required')
  const guild = guildFrom(ctx, body.guild_id)
  if (!isGuild(guild)) return guild
  if (body.roles !== undefined) {
    if (!Array.isArray(body.roles) || body.roles.some((r) => !guild.roles.some((role) => role.id === r))) {
      return controlError(400, 'roles must be role ids of the guild')
    }
  }
  if (body.permissions !== undefined && body.permissions !== null && !(typeof body.permissions === 'string' && /^\d+$/.test(body.permissions))) {
    return controlError(400, 'permissions must be a decimal bitfield string')
  }
  const input: Parameters<typeof ctx.world.upsertMember>[1] = { id: body.id, username }
  if (body.global_name !== undefined) input.globalName = typeof body.global_name === 'string' ? body.global_name : null
  if (Array.isArray(body.roles)) input.roles = body.roles as string[]
  if (body.permissions !== undefined) input.permissions = body.permissions as string | null
  if (body.nick !== undefined) input.nick = typeof body.nick === 'string' ? body.nick : null
  const { member, created } = ctx.world.upsertMember(guild, input)
  const payload = { guild_id: guild.id, ...memberPayload(ctx.world, member) }
  const result = ctx.gateway.dispatch(created ? 'GUILD_MEMBER_ADD' : 'GUILD_MEMBER_UPDATE', payload, { guildId: guild.id })
  return json(200, { created, member: memberPayload(ctx.world, member), sent: result.sent })
}

function removeMember(req: RequestInfo, ctx: SandboxContext): Reply {
  const body = bodyOf(req)
  if (!isSnowflake(body.id)) return controlError(400, 'id must be a snowflake string')
  if (body.id === ctx.world.botUserId) return controlError(400, 'the bot cannot leave')
  const guild = guildFrom(ctx, body.guild_id)
  if (!isGuild(guild)) return guild
  if (!guild.members.delete(body.id)) return controlError(404, `user ${body.id} is not a member of ${guild.id}`)
  const d = { guild_id: guild.id, user: userPayloadById(ctx.world, body.id) }
  const result = ctx.gateway.dispatch('GUILD_MEMBER_REMOVE', d, { guildId: guild.id })
  return json(200, { sent: result.sent })
}

function toPresence(status: string, activities: unknown[], now: number): { status: PresenceStatus; activities: unknown[] } {
  // Others see an invisible user exactly as offline, with no activities.
  if (status === 'invisible' || status === 'offline') return { status: 'offline', activities: [] }
  return {
    status: status as PresenceStatus,
    activities: activities.map((a) => (isObject(a) && a.created_at === undefined ? { ...a, created_at: now } : a)),
  }
}

function bulkMembers(req: RequestInfo, ctx: SandboxContext): Reply {
  const body = bodyOf(req)
  const guild = guildFrom(ctx, body.guild_id)
  if (!isGuild(guild)) return guild
  if (!Array.isArray(body.members)) return controlError(400, 'members must be an array')
  let added = 0
  let updated = 0
  for (const [index, item] of body.members.entries()) {
    if (!isObject(item) || !isSnowflake(item.id) || !str(item.username)) {
      return controlError(400, `members[${index}] needs a snowflake id and a username`)
    }
    const input: Parameters<typeof ctx.world.upsertMember>[1] = { id: item.id, username: item.username as string }
    if (typeof item.global_name === 'string') input.globalName = item.global_name
    if (Array.isArray(item.roles)) input.roles = item.roles.map(String)
    if (ctx.world.upsertMember(guild, input).created) added++
    else updated++
  }
  let presences = 0
  if (Array.isArray(body.presences)) {
    const now = ctx.now()
    for (const [index, item] of body.presences.entries()) {
      if (!isObject(item) || !isSnowflake(item.user_id) || typeof item.status !== 'string' || !STATUSES.has(item.status)) {
        return controlError(400, `presences[${index}] needs a user_id and a valid status`)
      }
      ctx.world.presences.set(item.user_id, toPresence(item.status, Array.isArray(item.activities) ? item.activities : [], now))
      presences++
    }
  }
  return json(200, { added, updated, total: guild.members.size, presences })
}

function setPresence(req: RequestInfo, ctx: SandboxContext): Reply {
  const body = bodyOf(req)
  if (!isSnowflake(body.user_id)) return controlError(400, 'user_id must be a snowflake string')
  const userId = body.user_id
  if (typeof body.status !== 'string' || !STATUSES.has(body.status)) {
    return controlError(400, 'status must be one of online, idle, dnd, offline, invisible')
  }
  if (body.activities !== undefined && !Array.isArray(body.activities)) return controlError(400, 'activities must be an array')
  const user = ctx.world.users.get(userId)
  if (!user) return controlError(404, `unknown user ${userId}`)
  let guilds: GuildRecord[]
  if (body.guild_id !== undefined) {
    const guild = guildFrom(ctx, body.guild_id)
    if (!isGuild(guild)) return guild
    if (!guild.members.has(userId)) return controlError(404, `user ${userId} is not a member of ${guild.id}`)
    guilds = [guild]
  } else {
    guilds = ctx.world.guildsOf(userId)
  }
  const presence = toPresence(body.status, (body.activities as unknown[] | undefined) ?? [], ctx.now())
  ctx.world.presences.set(userId, presence)
  const shards: number[] = []
  for (const guild of guilds) {
    const d = {
      user: userPayload(user),
      guild_id: guild.id,
      status: presence.status,
      activities: presence.activities,
      client_status: clientStatus(presence),
    }
    shards.push(...ctx.gateway.dispatch('PRESENCE_UPDATE', d, { guildId: guild.id }).shards)
  }
  return json(200, { sent: shards.length, shards })
}

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

function dispatchRaw(req: RequestInfo, ctx: SandboxContext): Reply {
  const body = bodyOf(req)
  const t = str(body.t)
  if (!t) return controlError(400, 't is required')
  if (body.shard !== undefined && (typeof body.shard !== 'number' || !Number.isInteger(body.shard))) {
    return controlError(400, 'shard must be an integer')
  }
  const dGuild = isObject(body.d) ? body.d.guild_id : undefined
  const guildId = typeof body.guild_id === 'string' ? body.guild_id : typeof dGuild === 'string' ? dGuild : null
  if (guildId !== null && !isSnowflake(guildId)) return controlError(400, 'guild_id must be a snowflake string')
  const target = typeof body.shard === 'number' ? { shard: body.shard, guildId } : { guildId }
  return json(200, ctx.gateway.dispatch(t, body.d ?? null, target))
}

function userMessage(req: RequestInfo, ctx: SandboxContext): Reply {
  const body = bodyOf(req)
  if (!isSnowflake(body.author_id)) return controlError(400, 'author_id must be a snowflake string')
  const author = ctx.world.users.get(body.author_id)
  if (!author) return controlError(404, `unknown user ${body.author_id}`)
  let channel: ChannelRecord | undefined
  if (body.dm === true) channel = ctx.world.dmChannel(author.id)
  else if (typeof body.channel_id === 'string') channel = ctx.world.channels.get(body.channel_id)
  if (!channel) return controlError(404, `unknown channel ${String(body.channel_id)}`)
  if (channel.type === 1 && channel.recipientId !== author.id) return controlError(400, 'only the DM recipient can write in that DM')
  if (channel.guildId && !ctx.world.guilds.get(channel.guildId)?.members.has(author.id)) {
    return controlError(404, `user ${author.id} is not a member of ${channel.guildId}`)
  }
  const content = typeof body.content === 'string' ? body.content : ''
  const record = postMessage(ctx, {
    channel,
    body: { content, embeds: Array.isArray(body.embeds) ? body.embeds : [] },
    author: userPayload(author),
    source: 'user',
  })
  return json(200, messageEventData(ctx, record))
}

function listMessages(req: RequestInfo, ctx: SandboxContext): Reply {
  const channelId = req.query.get('channel_id')
  const webhookId = req.query.get('webhook_id')
  const userId = req.query.get('user_id')
  const out: Record<string, unknown>[] = []
  for (const record of ctx.world.messages.values()) {
    if (record.source !== 'channel' && record.source !== 'dm' && record.source !== 'webhook') continue
    if (channelId !== null && record.message.channel_id !== channelId) continue
    if (webhookId !== null && record.webhookId !== webhookId) continue
    if (userId !== null && record.dmUserId !== userId) continue
    out.push(controlMessageView(record))
  }
  return json(200, out)
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

function addWebhook(req: RequestInfo, ctx: SandboxContext): Reply {
  const body = bodyOf(req)
  const channel = typeof body.channel_id === 'string' ? ctx.world.channels.get(body.channel_id) : undefined
  if (!channel || channel.type !== 0) return controlError(404, `unknown guild text channel ${String(body.channel_id)}`)
  const hook = createWebhook(ctx, channel, str(body.name) ?? 'Sandbox Webhook')
  return json(200, {
    id: hook.id,
    token: hook.token,
    url: `${ctx.urls().apiBase}/webhooks/${hook.id}/${hook.token}`,
    channel_id: hook.channelId,
    guild_id: hook.guildId,
  })
}

function setFailure(rules: Map<string, FailureRule>, exists: (id: string) => boolean, kind: string): Route<SandboxContext>['handler'] {
  return (req) => {
    const id = req.params.id ?? ''
    if (!exists(id)) return controlError(404, `unknown ${kind} ${id}`)
    const body = bodyOf(req)
    if (body.status === null) {
      rules.delete(id)
      return json(200, { pending: 0 })
    }
    if (typeof body.status !== 'number' || !Number.isInteger(body.status) || body.status < 400 || body.status > 599) {
      return controlError(400, 'status must be an HTTP error status (400-599) or null')
    }
    const count = body.count === undefined ? 1 : body.count
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) return controlError(400, 'count must be a positive integer')
    const retryAfter = body.retry_after === undefined ? 1 : body.retry_after
    if (typeof retryAfter !== 'number' || !(retryAfter >= 0)) return controlError(400, 'retry_after must be seconds >= 0')
    rules.set(id, { status: body.status, remaining: count, retryAfter })
    return json(200, { pending: count })
  }
}

function disconnect(req: RequestInfo, ctx: SandboxContext): Reply {
  const body = bodyOf(req)
  const shard = body.shard === undefined ? 0 : body.shard
  if (typeof shard !== 'number' || !Number.isInteger(shard) || shard < 0) return controlError(400, 'shard must be an integer >= 0')
  if (body.code !== undefined && (typeof body.code !== 'number' || !(body.code === 1000 || (body.code >= 3000 && body.code <= 4999)))) {
    return controlError(400, 'code must be 1000 or in 3000-4999')
  }
  const how: { code?: number; invalidate?: boolean; reconnect?: boolean } = {}
  if (typeof body.code === 'number') how.code = body.code
  if (body.invalidate === true) how.invalidate = true
  if (body.reconnect === true) how.reconnect = true
  return json(200, { ended: ctx.gateway.disconnect(shard, how) })
}

function addRobloxUser(req: RequestInfo, ctx: SandboxContext): Reply {
  const body = bodyOf(req)
  const id = typeof body.id === 'string' && /^\d{1,15}$/.test(body.id) ? Number(body.id) : body.id
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) return controlError(400, 'id must be a positive integer')
  const name = str(body.name)
  if (!name) return controlError(400, 'name is required')
  const user = { id, name, displayName: str(body.displayName) ?? name, created: new Date(ctx.now()).toISOString() }
  ctx.world.robloxUsers.set(id, user)
  return json(200, user)
}

function robloxFail(req: RequestInfo, ctx: SandboxContext): Reply {
  const status = bodyOf(req).status
  if (status !== null && (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599)) {
    return controlError(400, 'status must be an HTTP error status (400-599) or null')
  }
  ctx.world.robloxFailure = status
  return json(200, { status })
}

function reset(ctx: SandboxContext): Reply {
  ctx.world.reset()
  ctx.interactions.clear()
  ctx.counter.clear()
  ctx.rateLimits.clear()
  ctx.log('sandbox reset')
  return json(200, { ok: true })
}

/** The control API routes (paths are relative to `/control`). */
export function controlRoutes(): Array<Route<SandboxContext>> {
  const r = (method: string, template: string, handler: Route<SandboxContext>['handler']): Route<SandboxContext> => ({ method, template, handler })
  return [
    r('GET', '/state', (_req, ctx) => state(ctx)),
    r('POST', '/guilds', addGuild),
    r('POST', '/members', upsertMember),
    r('DELETE', '/members', removeMember),
    r('POST', '/members/bulk', bulkMembers),
    r('POST', '/presence', setPresence),
    r('POST', '/commands', runCommand),
    r('POST', '/components', clickComponent),
    r('GET', '/interactions', (_req, ctx) => listInteractions(ctx)),
    r('POST', '/dispatch', dispatchRaw),
    r('POST', '/messages', userMessage),
    r('GET', '/messages', listMessages),
    r('POST', '/webhooks', addWebhook),
    r('POST', '/webhooks/:id/fail', (req, ctx) => setFailure(ctx.world.webhookFailures, (id) => ctx.world.webhooks.has(id), 'webhook')(req, ctx)),
    r('POST', '/channels/:id/fail', (req, ctx) => setFailure(ctx.world.channelFailures, (id) => ctx.world.channels.has(id), 'channel')(req, ctx)),
    r('GET', '/requests', (_req, ctx) => json(200, ctx.counter.snapshot())),
    r('DELETE', '/requests', (_req, ctx) => {
      ctx.counter.clear()
      return json(200, ctx.counter.snapshot())
    }),
    r('POST', '/disconnect', disconnect),
    r('POST', '/roblox-users', addRobloxUser),
    r('POST', '/roblox-fail', robloxFail),
    r('POST', '/reset', (_req, ctx) => reset(ctx)),
  ]
}
