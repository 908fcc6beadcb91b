/*
 * Fake interaction responses. `POST /interactions/:id/:token/callback` (no auth, as on Discord) serves discord.js
 * `reply` (4), `deferReply` (5, a "thinking" message), `deferUpdate` (6), `update` (7), autocomplete (8) and
 * `showModal` (9), with `?with_response=true`. The follow-up helpers serve the webhook routes addressed by the
 * application id and interaction token: `editReply` (PATCH `messages/@original`, which discord.js sends as `%40original`)
 * and `followUp` (POST), which after a deferred reply replaces the thinking message, as Discord does.
 */
import type { SandboxContext } from '../context.js'
import { json, noContent, type Reply } from '../http-reply.js'
import type { RequestInfo } from '../http-router.js'
import type { InteractionRecord, InteractionReply } from '../interactions.js'
import { botAuthor, editMessage, EPHEMERAL, LOADING, messageEventData, postMessage } from '../messaging.js'
import { userPayload, userPayloadById } from '../payloads.js'
import { isObject } from '../read-body.js'
import type { ChannelRecord, MessageRecord } from '../world-records.js'
import { discordError } from './discord-errors.js'
import { bodyOf, formError, messageProblem, param, route, type RestRoute } from './rest-route.js'

function replyFromMessage(type: number, record: MessageRecord): InteractionReply {
  const m = record.message
  return {
    type,
    content: m.content,
    embeds: m.embeds,
    components: m.components,
    flags: m.flags,
    message_id: m.id,
    ...(m.attachments.length > 0 ? { attachments: m.attachments } : {}),
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
export function interactionOf(req: RequestInfo, ctx: SandboxContext): InteractionRecord | null {
  if (param(req, 'id') !== ctx.world.applicationId) return null
  return ctx.interactions.byToken(param(req, 'token')) ?? null
}

/** Settles a deferred interaction (type 5 or 6) with the message that completed it. */
export function completeDeferred(ctx: SandboxContext, interaction: InteractionRecord, record: MessageRecord): void {
  if (interaction.callbackType === 5 || interaction.callbackType === 6) {
    ctx.interactions.settle(interaction, replyFromMessage(interaction.callbackType, record))
  }
}

/** The interaction's `@original` or one of its follow-ups, by id. */
export function interactionMessage(ctx: SandboxContext, interaction: InteractionRecord, messageId: string): MessageRecord | null {
  const id = messageId === '@original' ? interaction.originalId : messageId
  if (id === null) return null
  if (id !== interaction.originalId && !interaction.followupIds.includes(id)) return null
  return ctx.world.messages.get(id) ?? null
}

/** An interaction follow-up (`POST /webhooks/:application/:token`): discord.js `followUp`, or `editReply` after a defer. */
export function executeFollowUp(ctx: SandboxContext, interaction: InteractionRecord, body: Record<string, unknown>): Reply {
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

/** The interaction callback route. */
export function interactionCallbackRoutes(): RestRoute[] {
  return [route('POST', '/interactions/:id/:token/callback', ['id'], interactionCallback, false)]
}
