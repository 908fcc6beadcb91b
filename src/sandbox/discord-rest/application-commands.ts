/*
 * Fake application and application-command routes: `GET /applications/@me` (discord.js `client.application.fetch()`),
 * and global and guild commands (list, bulk overwrite with PUT as `application.commands.set()` does, create, get,
 * edit, delete). A re-registered name keeps its id, as on Discord; `/control/commands` invokes what is registered.
 */
import type { SandboxContext } from '../context.js'
import { json, noContent, type Reply } from '../http-reply.js'
import type { RequestInfo } from '../http-router.js'
import { botAuthor } from '../messaging.js'
import { userPayloadById } from '../payloads.js'
import { isObject } from '../read-body.js'
import type { CommandObject } from '../world-records.js'
import { discordError } from './discord-errors.js'
import { bodyOf, formError, isReply, param, route, type RestRoute } from './rest-route.js'

function applicationPayload(ctx: SandboxContext): Record<string, unknown> {
  return {
    id: ctx.world.applicationId,
    name: botAuthor(ctx).username,
    icon: null,
    description: 'Local sandbox application',
    summary: '',
    type: null,
    bot_public: false,
    bot_require_code_grant: false,
    verify_key: '0'.repeat(64),
    flags: 0,
    bot: botAuthor(ctx),
    owner: userPayloadById(ctx.world, ctx.world.guilds.get(ctx.world.defaultGuildId)?.ownerId ?? ctx.world.botUserId),
    team: null,
    approximate_guild_count: ctx.world.guilds.size,
    interactions_endpoint_url: null,
    redirect_uris: [],
    tags: [],
    integration_types_config: { '0': {} },
  }
}

function buildCommand(ctx: SandboxContext, body: Record<string, unknown>, existing: CommandObject[], guildId: string | null): CommandObject | Reply {
  const name = body.name
  if (typeof name !== 'string' || !/^[-_\p{L}\p{N}]{1,32}$/u.test(name)) {
    return formError('name', 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid')
  }
  const type = typeof body.type === 'number' ? body.type : 1
  const previous = existing.find((c) => c.name === name && (c.type ?? 1) === type)
  const command: CommandObject = {
    id: previous?.id ?? ctx.snowflakes.next(),
    application_id: ctx.world.applicationId,
    version: ctx.snowflakes.next(),
    default_member_permissions: body.default_member_permissions ?? null,
    type,
    name,
    name_localizations: body.name_localizations ?? null,
    description: typeof body.description === 'string' ? body.description : '',
    description_localizations: body.description_localizations ?? null,
    contexts: body.contexts ?? null,
    integration_types: body.integration_types ?? [0],
    nsfw: body.nsfw === true,
  }
  if (Array.isArray(body.options)) command.options = body.options
  if (guildId !== null) command.guild_id = guildId
  else command.dm_permission = body.dm_permission ?? true
  return command
}

function commandRoutes(scope: 'global' | 'guild'): RestRoute[] {
  const base = scope === 'global' ? '/applications/:app/commands' : '/applications/:app/guilds/:guild/commands'
  const major = scope === 'global' ? ['app'] : ['app', 'guild']
  const resolve = (ctx: SandboxContext, req: RequestInfo): { list: CommandObject[]; guildId: string | null } | Reply => {
    if (param(req, 'app') !== ctx.world.applicationId) return discordError('unknownApplication')
    if (scope === 'global') return { list: ctx.world.globalCommands, guildId: null }
    const guildId = param(req, 'guild')
    const guild = ctx.world.guilds.get(guildId)
    if (guild === undefined) return discordError('unknownGuild')
    // Discord refuses a guild's commands to an application the guild did not authorize with applications.commands.
    if (!guild.commandsScope) return discordError('missingAccess')
    let list = ctx.world.guildCommands.get(guildId)
    if (!list) {
      list = []
      ctx.world.guildCommands.set(guildId, list)
    }
    return { list, guildId }
  }
  return [
    route('GET', base, major, (req, ctx) => {
      const scopeState = resolve(ctx, req)
      return isReply(scopeState) ? scopeState : json(200, scopeState.list)
    }),
    route('PUT', base, major, (req, ctx) => {
      const scopeState = resolve(ctx, req)
      if (isReply(scopeState)) return scopeState
      if (!Array.isArray(req.body)) return formError('_', 'BASE_TYPE_ARRAY', 'Expected an array of commands')
      const built: CommandObject[] = []
      for (const item of req.body) {
        const command = buildCommand(ctx, isObject(item) ? item : {}, scopeState.list, scopeState.guildId)
        if (isReply(command)) return command
        built.push(command)
      }
      scopeState.list.splice(0, scopeState.list.length, ...built)
      ctx.log('commands registered', { scope, guild: scopeState.guildId, names: built.map((c) => c.name) })
      return json(200, built)
    }),
    route('POST', base, major, (req, ctx) => {
      const scopeState = resolve(ctx, req)
      if (isReply(scopeState)) return scopeState
      const command = buildCommand(ctx, bodyOf(req), scopeState.list, scopeState.guildId)
      if (isReply(command)) return command
      const index = scopeState.list.findIndex((c) => c.id === command.id)
      if (index === -1) scopeState.list.push(command)
      else scopeState.list[index] = command
      return json(index === -1 ? 201 : 200, command)
    }),
    route('GET', `${base}/:command`, major, (req, ctx) => {
      const scopeState = resolve(ctx, req)
      if (isReply(scopeState)) return scopeState
      const command = scopeState.list.find((c) => c.id === param(req, 'command'))
      return command ? json(200, command) : discordError('unknownCommand')
    }),
    route('PATCH', `${base}/:command`, major, (req, ctx) => {
      const scopeState = resolve(ctx, req)
      if (isReply(scopeState)) return scopeState
      const index = scopeState.list.findIndex((c) => c.id === param(req, 'command'))
      const current = scopeState.list[index]
      if (!current) return discordError('unknownCommand')
      const updated = buildCommand(ctx, { ...current, ...bodyOf(req) }, [current], scopeState.guildId)
      if (isReply(updated)) return updated
      updated.id = current.id
      scopeState.list[index] = updated
      return json(200, updated)
    }),
    route('DELETE', `${base}/:command`, major, (req, ctx) => {
      const scopeState = resolve(ctx, req)
      if (isReply(scopeState)) return scopeState
      const index = scopeState.list.findIndex((c) => c.id === param(req, 'command'))
      if (index === -1) return discordError('unknownCommand')
      scopeState.list.splice(index, 1)
      return noContent()
    }),
  ]
}

/** The application and command routes. */
export function applicationRoutes(): RestRoute[] {
  return [
    route('GET', '/applications/@me', [], (_req, ctx) => json(200, applicationPayload(ctx))),
    ...commandRoutes('global'),
    ...commandRoutes('guild'),
  ]
}
