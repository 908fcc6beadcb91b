/*
 * Control of the fake Discord's members and presences: add or update a member (GUILD_MEMBER_ADD / UPDATE), remove
 * one (GUILD_MEMBER_REMOVE), bulk-load members and presences without dispatching (they arrive in GUILD_CREATE and
 * member chunks), and set a presence (one PRESENCE_UPDATE per guild of the user, as discord.js `presenceUpdate` sees).
 */
import type { SandboxContext } from '../context.js'
import { clientStatus } from '../discord-gateway/dispatch-payloads.js'
import { controlError, json, type Reply } from '../http-reply.js'
import type { RequestInfo } from '../http-router.js'
import { memberPayload, userPayload, userPayloadById } from '../payloads.js'
import { isObject } from '../read-body.js'
import { isSnowflake } from '../snowflakes.js'
import type { GuildRecord, PresenceStatus } from '../world-records.js'
import { bodyOf, controlRoute, guildFrom, isGuild, str, type ControlRoute } from './control-kit.js'

const STATUSES = new Set(['online', 'idle', 'dnd', 'offline', 'invisible'])

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
  if (body.after_member_chunks !== undefined && typeof body.after_member_chunks !== 'boolean') return controlError(400, 'after_member_chunks must be a boolean')
  const change = (): number[] => {
    const presence = toPresence(body.status as string, (body.activities as unknown[] | undefined) ?? [], ctx.now())
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
    return shards
  }
  // A change that races a resync: made right after the next member chunks of the user's (first) guild go out, so
  // those chunks carry the presence from before it and the PRESENCE_UPDATE follows them on the same connection.
  if (body.after_member_chunks === true) {
    const first = guilds[0]
    if (first === undefined) return controlError(404, `user ${userId} is in no guild`)
    ctx.gateway.afterMemberChunks(first.id, () => void change())
    return json(200, { sent: 0, shards: [], held: true })
  }
  const shards = change()
  return json(200, { sent: shards.length, shards })
}

/** The member and presence routes. */
export function memberControlRoutes(): ControlRoute[] {
  return [
    controlRoute('POST', '/members', upsertMember),
    controlRoute('DELETE', '/members', removeMember),
    controlRoute('POST', '/members/bulk', bulkMembers),
    controlRoute('POST', '/presence', setPresence),
  ]
}
