/*
 * Fake guild and member routes: `GET /guilds/:id`, its roles and channels, members (list paged by `after`, search by
 * name prefix, fetch, edit nick and roles) and role add/remove (`member.roles.add/remove`). Member changes dispatch
 * GUILD_MEMBER_UPDATE so discord.js caches follow, as on Discord.
 */
import type { SandboxContext } from '../context.js'
import { json, noContent } from '../http-reply.js'
import type { RequestInfo } from '../http-router.js'
import { channelPayload, guildPayload, memberPayload, rolePayload } from '../payloads.js'
import { isSnowflake } from '../snowflakes.js'
import type { GuildRecord } from '../world-records.js'
import { discordError } from './discord-errors.js'
import { bodyOf, formError, param, route, type Handler, type RestRoute } from './rest-route.js'

function guildOf(req: RequestInfo, ctx: SandboxContext): GuildRecord | null {
  return ctx.world.guilds.get(param(req, 'id')) ?? null
}

function memberUpdated(ctx: SandboxContext, guild: GuildRecord, userId: string): void {
  const member = guild.members.get(userId)
  if (member) ctx.gateway.dispatch('GUILD_MEMBER_UPDATE', { guild_id: guild.id, ...memberPayload(ctx.world, member) }, { guildId: guild.id })
}

/** The guild and member routes. */
export function guildRoutes(): RestRoute[] {
  const roleChange = (add: boolean): Handler => (req, ctx) => {
    const guild = guildOf(req, ctx)
    if (!guild) return discordError('unknownGuild')
    const member = guild.members.get(param(req, 'user'))
    if (!member) return discordError('unknownMember')
    const roleId = param(req, 'role')
    if (!guild.roles.some((r) => r.id === roleId)) return discordError('unknownRole')
    const has = member.roles.includes(roleId)
    if (add && !has) member.roles.push(roleId)
    if (!add && has) member.roles = member.roles.filter((r) => r !== roleId)
    if (add !== has) memberUpdated(ctx, guild, member.userId)
    return noContent()
  }
  return [
    route('GET', '/guilds/:id', ['id'], (req, ctx) => {
      const guild = guildOf(req, ctx)
      return guild ? json(200, guildPayload(ctx.world, guild)) : discordError('unknownGuild')
    }),
    route('GET', '/guilds/:id/roles', ['id'], (req, ctx) => {
      const guild = guildOf(req, ctx)
      return guild ? json(200, guild.roles.map(rolePayload)) : discordError('unknownGuild')
    }),
    route('GET', '/guilds/:id/channels', ['id'], (req, ctx) => {
      const guild = guildOf(req, ctx)
      if (!guild) return discordError('unknownGuild')
      return json(200, guild.channelIds.flatMap((id) => {
        const channel = ctx.world.channels.get(id)
        return channel ? [channelPayload(ctx.world, channel)] : []
      }))
    }),
    route('GET', '/guilds/:id/members', ['id'], (req, ctx) => {
      const guild = guildOf(req, ctx)
      if (!guild) return discordError('unknownGuild')
      const limit = Math.min(1000, Math.max(1, Number(req.query.get('limit') ?? 1) || 1))
      const afterParam = req.query.get('after') ?? '0'
      if (!isSnowflake(afterParam)) return formError('after', 'NUMBER_TYPE_COERCE', 'Value is not snowflake.')
      const after = BigInt(afterParam)
      const members = [...guild.members.values()]
        .filter((m) => BigInt(m.userId) > after)
        .sort((a, b) => (BigInt(a.userId) < BigInt(b.userId) ? -1 : 1))
        .slice(0, limit)
      return json(200, members.map((m) => memberPayload(ctx.world, m)))
    }),
    route('GET', '/guilds/:id/members/search', ['id'], (req, ctx) => {
      const guild = guildOf(req, ctx)
      if (!guild) return discordError('unknownGuild')
      const query = (req.query.get('query') ?? '').toLowerCase()
      const limit = Math.min(1000, Math.max(1, Number(req.query.get('limit') ?? 1) || 1))
      const found = [...guild.members.values()]
        .filter((m) => {
          const user = ctx.world.users.get(m.userId)
          return [user?.username, user?.globalName, m.nick].some((n) => typeof n === 'string' && n.toLowerCase().startsWith(query))
        })
        .slice(0, limit)
      return json(200, found.map((m) => memberPayload(ctx.world, m)))
    }),
    route('GET', '/guilds/:id/members/:user', ['id'], (req, ctx) => {
      const guild = guildOf(req, ctx)
      if (!guild) return discordError('unknownGuild')
      const member = guild.members.get(param(req, 'user'))
      return member ? json(200, memberPayload(ctx.world, member)) : discordError('unknownMember')
    }),
    route('PATCH', '/guilds/:id/members/:user', ['id'], (req, ctx) => {
      const guild = guildOf(req, ctx)
      if (!guild) return discordError('unknownGuild')
      const member = guild.members.get(param(req, 'user'))
      if (!member) return discordError('unknownMember')
      const body = bodyOf(req)
      if (typeof body.nick === 'string' || body.nick === null) member.nick = body.nick === '' ? null : body.nick
      if (Array.isArray(body.roles)) member.roles = body.roles.map(String)
      memberUpdated(ctx, guild, member.userId)
      return json(200, memberPayload(ctx.world, member))
    }),
    route('PUT', '/guilds/:id/members/:user/roles/:role', ['id'], roleChange(true)),
    route('DELETE', '/guilds/:id/members/:user/roles/:role', ['id'], roleChange(false)),
  ]
}
