/*
 * Control of the fake Discord's guilds: `GET /control/state` (ids, addresses, guilds, commands, shards) and
 * `POST /control/guilds` (a new guild, optionally with an id routed to a chosen shard, sent as GUILD_CREATE; with
 * `applications_commands: false` the bot was invited without that scope, so registering commands there is refused).
 */
import type { SandboxContext } from '../context.js'
import { controlError, json, type Reply } from '../http-reply.js'
import type { RequestInfo } from '../http-router.js'
import { guildCreatePayload } from '../discord-gateway/dispatch-payloads.js'
import { isSnowflake } from '../snowflakes.js'
import type { GuildRecord } from '../world-records.js'
import { bodyOf, controlRoute, str, type ControlRoute } from './control-kit.js'

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
  if (body.applications_commands !== undefined && typeof body.applications_commands !== 'boolean') {
    return controlError(400, 'applications_commands must be true or false')
  }
  const input: { id?: string; name: string; shard?: number; commandsScope?: boolean } = { name }
  if (typeof body.id === 'string') input.id = body.id
  if (typeof shard === 'number') input.shard = shard
  if (body.applications_commands === false) input.commandsScope = false
  const guild = ctx.world.addGuild(input)
  const result = ctx.gateway.dispatch('GUILD_CREATE', guildCreatePayload(ctx.world, guild, true), { guildId: guild.id })
  return json(200, { ...guildView(ctx, guild), sent: result.sent })
}


/** The state and guild routes. */
export function guildControlRoutes(): ControlRoute[] {
  return [controlRoute('GET', '/state', (_req, ctx) => state(ctx)), controlRoute('POST', '/guilds', addGuild)]
}
