/*
 * Control of messages and webhooks: a simulated user's message (MESSAGE_CREATE, content blank without the
 * MESSAGE_CONTENT intent), what the bot posted (`GET /control/messages`), new channel webhooks, and failures injected
 * on a webhook or channel (the next executions or sends answer 429, 404, 401, 403 or 500, as discord.js must handle).
 */
import type { SandboxContext } from '../context.js'
import { createWebhook } from '../discord-rest/webhooks.js'
import { controlError, json, type Reply } from '../http-reply.js'
import type { RequestInfo } from '../http-router.js'
import { controlMessageView, messageEventData, postMessage } from '../messaging.js'
import { userPayload } from '../payloads.js'
import { isSnowflake } from '../snowflakes.js'
import type { ChannelRecord, FailureRule } from '../world-records.js'
import { bodyOf, controlRoute, str, type ControlRoute } from './control-kit.js'

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

function setFailure(rules: Map<string, FailureRule>, exists: (id: string) => boolean, kind: string): ControlRoute['handler'] {
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

/** The message, webhook and failure-injection routes. */
export function messageControlRoutes(): ControlRoute[] {
  return [
    controlRoute('POST', '/messages', userMessage),
    controlRoute('GET', '/messages', listMessages),
    controlRoute('POST', '/webhooks', addWebhook),
    controlRoute('POST', '/webhooks/:id/fail', (req, ctx) => setFailure(ctx.world.webhookFailures, (id) => ctx.world.webhooks.has(id), 'webhook')(req, ctx)),
    controlRoute('POST', '/channels/:id/fail', (req, ctx) => setFailure(ctx.world.channelFailures, (id) => ctx.world.channels.has(id), 'channel')(req, ctx)),
  ]
}
