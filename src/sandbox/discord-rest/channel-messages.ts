/*
 * Fake channel routes: `GET /channels/:id` (discord.js `channels.fetch`), messages (send, list with before/after,
 * fetch, edit own, delete), reactions (`message.react`) and typing (`channel.sendTyping`). Ephemeral messages are
 * invisible here, as on Discord. Sends and edits honour failures injected by `/control/channels/:id/fail`
 * (403 in a DM is 50007 Cannot send messages to this user, which discord.js reports when DMs are closed).
 */
import type { SandboxContext } from '../context.js'
import { json, noContent, type Reply } from '../http-reply.js'
import type { RequestInfo } from '../http-router.js'
import { botAuthor, deleteMessage, editMessage, EPHEMERAL, postMessage } from '../messaging.js'
import { channelPayload } from '../payloads.js'
import { isSnowflake } from '../snowflakes.js'
import type { ChannelRecord, MessageRecord } from '../world-records.js'
import { discordError } from './discord-errors.js'
import { failureReply, takeFailure } from './failures.js'
import { bodyOf, formError, isReply, limitedAs, messageProblem, param, route, type RestRoute } from './rest-route.js'

/** The channel named by the `:id` param, if any. */
export function channelOf(req: RequestInfo, ctx: SandboxContext): ChannelRecord | null {
  return ctx.world.channels.get(param(req, 'id')) ?? null
}

/** A failure injected on the channel, answered as Discord would, or null. */
function channelFailure(ctx: SandboxContext, channel: ChannelRecord): Reply | null {
  const failure = takeFailure(ctx.world.channelFailures, channel.id)
  if (!failure) return null
  return failureReply(failure, 'unknownChannel', channel.type === 1 ? 'cannotMessageUser' : 'missingPermissions')
}

/** The channel and channel-message routes. */
export function channelRoutes(): RestRoute[] {
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
    route('GET', '/channels/:id', ['id'], (req, ctx) => {
      const channel = channelOf(req, ctx)
      return channel ? json(200, channelPayload(ctx.world, channel)) : discordError('unknownChannel')
    }),
    // Discord's message bucket per channel (commonly 5 per 5 s): the limit a busy log channel meets first.
    limitedAs(
      'messageCreate',
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
    ),
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
