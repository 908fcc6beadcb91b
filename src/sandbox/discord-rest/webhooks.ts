/*
 * Fake channel webhooks: create and list on a channel (`channel.createWebhook`), fetch and delete, execute
 * (`WebhookClient.send`, a bare 204 unless `?wait=true`), and read, edit or delete a sent message
 * (`WebhookClient.editMessage`). The same `/webhooks/:id/:token` routes carry interaction follow-ups when the id is the
 * application's and the token an interaction's. Execution honours failures injected by `/control/webhooks/:id/fail`.
 */
import type { SandboxContext } from '../context.js'
import { json, noContent, type Reply } from '../http-reply.js'
import type { RequestInfo } from '../http-router.js'
import type { InteractionRecord } from '../interactions.js'
import { botAuthor, deleteMessage, editMessage, postMessage } from '../messaging.js'
import type { ChannelRecord, MessageRecord, WebhookRecord } from '../world-records.js'
import { discordError } from './discord-errors.js'
import { failureReply, takeFailure } from './failures.js'
import { completeDeferred, executeFollowUp, interactionMessage, interactionOf } from './interaction-callbacks.js'
import { bodyOf, formError, isReply, limitedAs, messageProblem, param, route, type RestRoute } from './rest-route.js'

/** The webhook object; `withUser` adds the creator, as the bot-authenticated routes do. */
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

/** The webhook named by the `:id` and `:token` params, if the token matches. */
function webhookOf(req: RequestInfo, ctx: SandboxContext): WebhookRecord | null {
  const hook = ctx.world.webhooks.get(param(req, 'id'))
  return hook && hook.token === param(req, 'token') ? hook : null
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
  if (interaction) return executeFollowUp(ctx, interaction, body)
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

/** The webhook routes, including the channel routes that create and list webhooks. */
export function webhookRoutes(): RestRoute[] {
  return [
    ...webhookMessageRoutes(),
    // Discord's webhook bucket (about 5 per 2 s per webhook); interaction follow-ups take one per interaction token.
    limitedAs('webhookExecute', route('POST', '/webhooks/:id/:token', ['id', 'token'], executeWebhook, false)),
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
    route('POST', '/channels/:id/webhooks', ['id'], (req, ctx) => {
      const channel = ctx.world.channels.get(param(req, 'id'))
      if (!channel || channel.type !== 0) return discordError('unknownChannel')
      const name = bodyOf(req).name
      if (typeof name !== 'string' || name.length < 1 || name.length > 80) {
        return formError('name', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 80 in length.')
      }
      return json(200, webhookPayload(ctx, createWebhook(ctx, channel, name), true))
    }),
    route('GET', '/channels/:id/webhooks', ['id'], (req, ctx) => {
      const channel = ctx.world.channels.get(param(req, 'id'))
      if (!channel) return discordError('unknownChannel')
      const hooks = [...ctx.world.webhooks.values()].filter((h) => h.channelId === channel.id)
      return json(200, hooks.map((h) => webhookPayload(ctx, h, true)))
    }),
  ]
}
