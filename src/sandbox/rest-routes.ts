import type { SandboxContext } from './context.js'
import { failureReply, takeFailure } from './failures.js'
import { discordError, isObject, json, noContent, type Reply, type RequestInfo, type Route } from './http-kit.js'
import type { InteractionRecord, InteractionReply } from './interactions.js'
import { checkMessage } from './message-rules.js'
import {
  botAuthor,
  deleteMessage,
  editMessage,
  EPHEMERAL,
  LOADING,
  messageEventData,
  postMessage,
} from './messaging.js'
import { channelPayload, guildPayload, memberPayload, rolePayload, userPayload, userPayloadById } from './payloads.js'
import { isSnowflake } from './snowflakes.js'
import type { ChannelRecord, CommandObject, GuildRecord, MessageRecord, WebhookRecord } from './world.js'

/** A Discord REST route: `auth` requires `Authorization: Bot <token>`; `major` names the params that split its rate-limit bucket. */
export interface RestRoute extends Route<SandboxContext> {
  auth: boolean
  major: string[]
}

type Handler = RestRoute['handler']

const route = (method: string, template: string, major: string[], handler: Handler, auth = true): RestRoute => ({
  method,
  template,
  major,
  handler,
  auth,
})

const bodyOf = (req: RequestInfo): Record<string, unknown> => (isObject(req.body) ? req.body : {})

const param = (req: RequestInfo, name: string): string => req.params[name] ?? ''

function messageProblem(body: Record<string, unknown>, requireBody: boolean): Reply | null {
  const check = checkMessage(body, requireBody)
  if (check.ok) return null
  if (check.error === 'emptyMessage') return discordError('emptyMessage')
  return discordError('invalidFormBody', { errors: check.errors })
}

function formError(field: string, code: string, message: string): Reply {
  return discordError('invalidFormBody', { errors: { [field]: { _errors: [{ code, message }] } } })
}

function currentUser(ctx: SandboxContext): Record<string, unknown> {
  return { ...botAuthor(ctx), verified: true, mfa_enabled: false, email: null, locale: 'en-US' }
}

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

function webhookPayload(ctx: SandboxContext, hook: WebhookRecord, withUser: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: hook.id,
    type: 1,
    guild_id: hook.guildId,
    channel_id: hook.channelId,
    name: hook.name,
    avatar: hook.avatar,
    token: hook.token,
    application_id: ctx.world.applicationId,
  }
  if (withUser) out.user = botAuthor(ctx)
  return out
}

/** Creates a channel webhook (shared by REST and the control API). */
export function createWebhook(ctx: SandboxContext, channel: ChannelRecord, name: string): WebhookRecord {
  const hook: WebhookRecord = {
    id: ctx.snowflakes.next(),
    token: ctx.randomToken(51),
    channelId: channel.id,
    guildId: channel.guildId ?? '',
    name,
    avatar: null,
  }
  ctx.world.webhooks.set(hook.id, hook)
  return hook
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

function isReply(value: unknown): value is Reply {
  return isObject(value) && typeof value.status === 'number' && !('name' in value)
}

function commandRoutes(scope: 'global' | 'guild'): RestRoute[] {
  const base = scope === 'global' ? '/applications/:app/commands' : '/applications/:app/guilds/:guild/commands'
  const major = scope === 'global' ? ['app'] : ['app', 'guild']
  const resolve = (ctx: SandboxContext, req: RequestInfo): { list: CommandObject[]; guildId: string | null } | Reply => {
    if (param(req, 'app') !== ctx.world.applicationId) return discordError('unknownApplication')
    if (scope === 'global') return { list: ctx.world.globalCommands, guildId: null }
    const guildId = param(req, 'guild')
    if (!ctx.world.guilds.has(guildId)) return discordError('unknownGuild')
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

function replyFromMessage(type: number, record: MessageRecord): InteractionReply {
  const m = record.message
  return {
    type,
    content: m.content,
    embeds: m.embeds,
    components: m.components,
    flags: m.flags,
    message_id: m.id,
  }
}

function interactionChannel(ctx: SandboxContext, interaction: InteractionRecord): ChannelRecord | null {
  return ctx.world.channels.get(interaction.channelId) ?? null
}

function createResponseMessage(ctx: SandboxContext, interaction: InteractionRecord, body: Record<string, unknown>, extraFlags: number): MessageRecord | null {
  const channel = interactionChannel(ctx, interaction)
  if (!channel) return null
  const user = ctx.world.users.get(interaction.userId)
  return postMessage(ctx, {
    channel,
    body,
    author: botAuthor(ctx),
    source: 'interaction',
    type: interaction.kind === 'command' ? 20 : 0,
    interactionId: interaction.id,
    extraFlags,
    interactionMetadata: {
      id: interaction.id,
      type: interaction.kind === 'command' ? 2 : 3,
      user: user ? userPayload(user) : userPayloadById(ctx.world, interaction.userId),
      authorizing_integration_owners: {},
    },
  })
}

function interactionCallback(req: RequestInfo, ctx: SandboxContext): Reply {
  const interaction = ctx.interactions.byId(param(req, 'id'))
  if (!interaction || interaction.token !== param(req, 'token')) return discordError('unknownInteraction')
  if (interaction.callbackType !== null) return discordError('alreadyAcknowledged')
  const body = bodyOf(req)
  const type = body.type
  const data = isObject(body.data) ? body.data : {}
  let resource: MessageRecord | null = null
  switch (type) {
    case 1:
      break
    case 4: {
      const problem = messageProblem(data, true)
      if (problem) return problem
      resource = createResponseMessage(ctx, interaction, data, 0)
      if (!resource) return discordError('unknownChannel')
      interaction.originalId = resource.message.id
      ctx.interactions.settle(interaction, replyFromMessage(4, resource))
      break
    }
    case 5: {
      const flags = typeof data.flags === 'number' ? data.flags & EPHEMERAL : 0
      resource = createResponseMessage(ctx, interaction, { content: '', flags }, LOADING)
      if (!resource) return discordError('unknownChannel')
      interaction.originalId = resource.message.id
      break
    }
    case 6:
    case 7: {
      const source = interaction.sourceMessageId ? ctx.world.messages.get(interaction.sourceMessageId) : undefined
      if (!source) return formError('type', 'INTERACTION_RESPONSE_TYPE_INVALID', 'Interaction response type is only valid for component interactions')
      interaction.originalId = source.message.id
      if (type === 7) {
        const problem = messageProblem(data, false)
        if (problem) return problem
        resource = editMessage(ctx, source, data)
        ctx.interactions.settle(interaction, replyFromMessage(7, resource))
      }
      break
    }
    case 8:
      ctx.interactions.settle(interaction, { type: 8, content: '', embeds: [], components: [], flags: 0, message_id: null, choices: Array.isArray(data.choices) ? data.choices : [] })
      break
    case 9:
      ctx.interactions.settle(interaction, {
        type: 9,
        content: '',
        embeds: [],
        components: Array.isArray(data.components) ? data.components : [],
        flags: 0,
        message_id: null,
        custom_id: typeof data.custom_id === 'string' ? data.custom_id : '',
        title: typeof data.title === 'string' ? data.title : '',
      })
      break
    default:
      return formError('type', 'BASE_TYPE_CHOICES', `Value must be one of {1, 4, 5, 6, 7, 8, 9}.`)
  }
  interaction.callbackType = type
  if (req.query.get('with_response') !== 'true') return noContent()
  const original = interaction.originalId ? ctx.world.messages.get(interaction.originalId) : undefined
  return json(200, {
    interaction: {
      id: interaction.id,
      type: interaction.kind === 'command' ? 2 : 3,
      response_message_id: original?.message.id ?? null,
      response_message_loading: type === 5,
      response_message_ephemeral: original ? (original.message.flags & EPHEMERAL) !== 0 : false,
    },
    resource: { type, ...(resource ? { message: messageEventData(ctx, resource) } : {}) },
  })
}

/** An interaction addressed by the webhook routes (`/webhooks/:application/:token`), if the pair names one. */
function interactionOf(req: RequestInfo, ctx: SandboxContext): InteractionRecord | null {
  if (param(req, 'id') !== ctx.world.applicationId) return null
  return ctx.interactions.byToken(param(req, 'token')) ?? null
}

function webhookOf(req: RequestInfo, ctx: SandboxContext): WebhookRecord | null {
  const hook = ctx.world.webhooks.get(param(req, 'id'))
  return hook && hook.token === param(req, 'token') ? hook : null
}

/** Settles a deferred interaction (type 5 or 6) with the message that completed it. */
function completeDeferred(ctx: SandboxContext, interaction: InteractionRecord, record: MessageRecord): void {
  if (interaction.callbackType === 5 || interaction.callbackType === 6) {
    ctx.interactions.settle(interaction, replyFromMessage(interaction.callbackType, record))
  }
}

function interactionMessage(ctx: SandboxContext, interaction: InteractionRecord, messageId: string): MessageRecord | null {
  const id = messageId === '@original' ? interaction.originalId : messageId
  if (id === null) return null
  if (id !== interaction.originalId && !interaction.followupIds.includes(id)) return null
  return ctx.world.messages.get(id) ?? null
}

function webhookMessageRoutes(): RestRoute[] {
  const template = '/webhooks/:id/:token/messages/:message'
  const find = (req: RequestInfo, ctx: SandboxContext): { record: MessageRecord; interaction: InteractionRecord | null } | Reply => {
    const interaction = interactionOf(req, ctx)
    if (interaction) {
      const record = interactionMessage(ctx, interaction, req.params.message ?? '@original')
      return record ? { record, interaction } : discordError('unknownMessage')
    }
    const hook = webhookOf(req, ctx)
    if (!hook) return discordError('unknownWebhook')
    const record = ctx.world.messages.get(param(req, 'message'))
    return record && record.webhookId === hook.id ? { record, interaction: null } : discordError('unknownMessage')
  }
  const routes: RestRoute[] = []
  for (const path of [template, '/webhooks/:id/:token/messages/@original']) {
    routes.push(
      route('GET', path, ['id', 'token'], (req, ctx) => {
        const found = find(req, ctx)
        return isReply(found) ? found : json(200, found.record.message)
      }, false),
      route('PATCH', path, ['id', 'token'], (req, ctx) => {
        const found = find(req, ctx)
        if (isReply(found)) return found
        const body = bodyOf(req)
        const problem = messageProblem(body, false)
        if (problem) return problem
        const record = editMessage(ctx, found.record, body)
        if (found.interaction && record.message.id === found.interaction.originalId) completeDeferred(ctx, found.interaction, record)
        return json(200, record.message)
      }, false),
      route('DELETE', path, ['id', 'token'], (req, ctx) => {
        const found = find(req, ctx)
        if (isReply(found)) return found
        deleteMessage(ctx, found.record)
        return noContent()
      }, false),
    )
  }
  return routes
}

function executeWebhook(req: RequestInfo, ctx: SandboxContext): Reply {
  const body = bodyOf(req)
  const wait = req.query.get('wait') === 'true'
  const interaction = interactionOf(req, ctx)
  if (interaction) {
    if (interaction.callbackType === null) return discordError('unknownWebhook')
    const problem = messageProblem(body, true)
    if (problem) return problem
    const original = interaction.originalId ? ctx.world.messages.get(interaction.originalId) : undefined
    // Discord: after a deferred reply, the first follow-up replaces the "thinking" message.
    if (interaction.callbackType === 5 && original && (original.message.flags & LOADING) !== 0) {
      const record = editMessage(ctx, original, body)
      completeDeferred(ctx, interaction, record)
      return json(200, record.message)
    }
    const record = createResponseMessage(ctx, interaction, body, 0)
    if (!record) return discordError('unknownChannel')
    interaction.followupIds.push(record.message.id)
    completeDeferred(ctx, interaction, record)
    return json(200, record.message)
  }
  const hook = webhookOf(req, ctx)
  if (!hook) return discordError('unknownWebhook')
  const failure = takeFailure(ctx.world.webhookFailures, hook.id)
  if (failure) return failureReply(failure, 'unknownWebhook', 'missingPermissions')
  const channel = ctx.world.channels.get(hook.channelId)
  if (!channel) return discordError('unknownWebhook')
  const problem = messageProblem(body, true)
  if (problem) return problem
  const username = typeof body.username === 'string' && body.username !== '' ? body.username : hook.name
  const record = postMessage(ctx, {
    channel,
    body,
    author: {
      id: hook.id,
      username,
      discriminator: '0000',
      global_name: null,
      avatar: null,
      bot: true,
      public_flags: 0,
      flags: 0,
    },
    source: 'webhook',
    webhookId: hook.id,
  })
  return wait ? json(200, record.message) : noContent()
}

function channelOf(req: RequestInfo, ctx: SandboxContext): ChannelRecord | null {
  return ctx.world.channels.get(param(req, 'id')) ?? null
}

function channelFailure(ctx: SandboxContext, channel: ChannelRecord): Reply | null {
  const failure = takeFailure(ctx.world.channelFailures, channel.id)
  if (!failure) return null
  return failureReply(failure, 'unknownChannel', channel.type === 1 ? 'cannotMessageUser' : 'missingPermissions')
}

function channelMessageRoutes(): RestRoute[] {
  const find = (req: RequestInfo, ctx: SandboxContext): { channel: ChannelRecord; record: MessageRecord } | Reply => {
    const channel = channelOf(req, ctx)
    if (!channel) return discordError('unknownChannel')
    const record = ctx.world.messages.get(param(req, 'message'))
    if (!record || record.message.channel_id !== channel.id || (record.message.flags & EPHEMERAL) !== 0) {
      return discordError('unknownMessage')
    }
    return { channel, record }
  }
  return [
    route('POST', '/channels/:id/messages', ['id'], (req, ctx) => {
      const channel = channelOf(req, ctx)
      if (!channel) return discordError('unknownChannel')
      const failure = channelFailure(ctx, channel)
      if (failure) return failure
      const body = bodyOf(req)
      const problem = messageProblem(body, true)
      if (problem) return problem
      const record = postMessage(ctx, { channel, body, author: botAuthor(ctx), source: channel.type === 1 ? 'dm' : 'channel' })
      return json(200, record.message)
    }),
    route('GET', '/channels/:id/messages', ['id'], (req, ctx) => {
      const channel = channelOf(req, ctx)
      if (!channel) return discordError('unknownChannel')
      const limit = Math.min(100, Math.max(1, Number(req.query.get('limit') ?? 50) || 50))
      const before = req.query.get('before')
      const after = req.query.get('after')
      if ((before !== null && !isSnowflake(before)) || (after !== null && !isSnowflake(after))) {
        return formError('before', 'NUMBER_TYPE_COERCE', 'Value is not snowflake.')
      }
      const list = [...ctx.world.messages.values()]
        .filter((r) => r.message.channel_id === channel.id && (r.message.flags & EPHEMERAL) === 0)
        .filter((r) => (before ? BigInt(r.message.id) < BigInt(before) : true))
        .filter((r) => (after ? BigInt(r.message.id) > BigInt(after) : true))
        .reverse()
        .slice(0, limit)
      return json(200, list.map((r) => r.message))
    }),
    route('GET', '/channels/:id/messages/:message', ['id'], (req, ctx) => {
      const found = find(req, ctx)
      return isReply(found) ? found : json(200, found.record.message)
    }),
    route('PATCH', '/channels/:id/messages/:message', ['id'], (req, ctx) => {
      const found = find(req, ctx)
      if (isReply(found)) return found
      const failure = channelFailure(ctx, found.channel)
      if (failure) return failure
      if (found.record.message.author.id !== ctx.world.botUserId) return discordError('cannotEditOthers')
      const body = bodyOf(req)
      const problem = messageProblem(body, false)
      if (problem) return problem
      return json(200, editMessage(ctx, found.record, body).message)
    }),
    route('DELETE', '/channels/:id/messages/:message', ['id'], (req, ctx) => {
      const found = find(req, ctx)
      if (isReply(found)) return found
      const failure = channelFailure(ctx, found.channel)
      if (failure) return failure
      deleteMessage(ctx, found.record)
      return noContent()
    }),
    route('PUT', '/channels/:id/messages/:message/reactions/:emoji/@me', ['id'], (req, ctx) => {
      const found = find(req, ctx)
      return isReply(found) ? found : noContent()
    }),
    route('DELETE', '/channels/:id/messages/:message/reactions/:emoji/@me', ['id'], (req, ctx) => {
      const found = find(req, ctx)
      return isReply(found) ? found : noContent()
    }),
    route('POST', '/channels/:id/typing', ['id'], (req, ctx) => (channelOf(req, ctx) ? noContent() : discordError('unknownChannel'))),
  ]
}

function guildOf(req: RequestInfo, ctx: SandboxContext): GuildRecord | null {
  return ctx.world.guilds.get(param(req, 'id')) ?? null
}

function memberUpdated(ctx: SandboxContext, guild: GuildRecord, userId: string): void {
  const member = guild.members.get(userId)
  if (member) ctx.gateway.dispatch('GUILD_MEMBER_UPDATE', { guild_id: guild.id, ...memberPayload(ctx.world, member) }, { guildId: guild.id })
}

function guildRoutes(): RestRoute[] {
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

/** Every Discord REST route the sandbox serves (paths are relative to `/api/v10`). */
export function restRoutes(): RestRoute[] {
  return [
    route('GET', '/gateway', [], (_req, ctx) => json(200, { url: ctx.urls().gatewayUrl }), false),
    route('GET', '/gateway/bot', [], (_req, ctx) => {
      const shards = ctx.gateway.shards().length
      return json(200, {
        url: ctx.urls().gatewayUrl,
        shards,
        session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: Math.max(16, shards) },
      })
    }),
    route('GET', '/users/@me', [], (_req, ctx) => json(200, currentUser(ctx))),
    route('GET', '/users/:user', [], (req, ctx) => {
      const user = ctx.world.users.get(param(req, 'user'))
      return user ? json(200, userPayload(user)) : discordError('unknownUser')
    }),
    route('POST', '/users/@me/channels', [], (req, ctx) => {
      const recipient = bodyOf(req).recipient_id
      if (typeof recipient !== 'string' || !ctx.world.users.has(recipient)) return discordError('invalidRecipient')
      return json(200, channelPayload(ctx.world, ctx.world.dmChannel(recipient)))
    }),
    route('GET', '/applications/@me', [], (_req, ctx) => json(200, applicationPayload(ctx))),
    ...commandRoutes('global'),
    ...commandRoutes('guild'),
    route('POST', '/interactions/:id/:token/callback', ['id'], interactionCallback, false),
    ...webhookMessageRoutes(),
    route('POST', '/webhooks/:id/:token', ['id', 'token'], executeWebhook, false),
    route('GET', '/webhooks/:id/:token', ['id', 'token'], (req, ctx) => {
      const hook = webhookOf(req, ctx)
      return hook ? json(200, webhookPayload(ctx, hook, false)) : discordError('unknownWebhook')
    }, false),
    route('DELETE', '/webhooks/:id/:token', ['id', 'token'], (req, ctx) => {
      const hook = webhookOf(req, ctx)
      if (!hook) return discordError('unknownWebhook')
      ctx.world.webhooks.delete(hook.id)
      return noContent()
    }, false),
    route('GET', '/webhooks/:id', ['id'], (req, ctx) => {
      const hook = ctx.world.webhooks.get(param(req, 'id'))
      return hook ? json(200, webhookPayload(ctx, hook, true)) : discordError('unknownWebhook')
    }),
    route('GET', '/channels/:id', ['id'], (req, ctx) => {
      const channel = channelOf(req, ctx)
      return channel ? json(200, channelPayload(ctx.world, channel)) : discordError('unknownChannel')
    }),
    ...channelMessageRoutes(),
    route('POST', '/channels/:id/webhooks', ['id'], (req, ctx) => {
      const channel = channelOf(req, ctx)
      if (!channel || channel.type !== 0) return discordError('unknownChannel')
      const name = bodyOf(req).name
      if (typeof name !== 'string' || name.length < 1 || name.length > 80) {
        return formError('name', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 80 in length.')
      }
      return json(200, webhookPayload(ctx, createWebhook(ctx, channel, name), true))
    }),
    route('GET', '/channels/:id/webhooks', ['id'], (req, ctx) => {
      const channel = channelOf(req, ctx)
      if (!channel) return discordError('unknownChannel')
      const hooks = [...ctx.world.webhooks.values()].filter((h) => h.channelId === channel.id)
      return json(200, hooks.map((h) => webhookPayload(ctx, h, true)))
    }),
    ...guildRoutes(),
  ]
}
