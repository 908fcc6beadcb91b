/*
 * Messages in the fake Discord: stores what the bot, webhooks, interaction responses and simulated users post, and
 * sends MESSAGE_CREATE / MESSAGE_UPDATE / MESSAGE_DELETE to the owning shard so discord.js caches and events see them.
 * Shared by the REST routes (channel messages, webhooks, interactions) and the control API (user messages).
 */
import type { SandboxContext } from './context.js'
import { memberPayload, userPayload, userPayloadById } from './payloads.js'
import type { ChannelRecord, MessageObject, MessageRecord, MessageSource, UserObject } from './world-records.js'

/** Message flag: only the invoking user sees the message. */
export const EPHEMERAL = 1 << 6

/** Message flag: a deferred interaction response still "thinking". */
export const LOADING = 1 << 7

/** What a new message is made of. */
export interface NewMessage {
  channel: ChannelRecord
  body: Record<string, unknown>
  author: UserObject
  source: MessageSource
  type?: number
  webhookId?: string | null
  interactionId?: string | null
  extraFlags?: number
  interactionMetadata?: Record<string, unknown>
}

function mentionsIn(ctx: SandboxContext, content: string): UserObject[] {
  const ids = new Set<string>()
  for (const match of content.matchAll(/<@!?(\d{1,20})>/g)) if (match[1]) ids.add(match[1])
  return [...ids].flatMap((id) => {
    const user = ctx.world.users.get(id)
    return user ? [userPayload(user)] : []
  })
}

function attachmentsOf(ctx: SandboxContext, body: Record<string, unknown>, channelId: string): unknown[] {
  if (!Array.isArray(body.__files)) return []
  return (body.__files as Array<{ filename: string; size: number; content_type?: string }>).map((file) => {
    const id = ctx.snowflakes.next()
    const url = `${ctx.urls().url}/attachments/${channelId}/${id}/${encodeURIComponent(file.filename)}`
    return { id, filename: file.filename, size: file.size, url, proxy_url: url, content_type: file.content_type }
  })
}

/** The MESSAGE_CREATE / MESSAGE_UPDATE payload: the message plus guild_id and the author's member in guilds. */
export function messageEventData(ctx: SandboxContext, record: MessageRecord): Record<string, unknown> {
  const data: Record<string, unknown> = { ...record.message }
  if (record.guildId) {
    data.guild_id = record.guildId
    const member = ctx.world.guilds.get(record.guildId)?.members.get(record.message.author.id)
    if (member && !record.webhookId) {
      const { user: _user, ...rest } = memberPayload(ctx.world, member)
      data.member = rest
    }
  }
  return data
}

function isHidden(record: MessageRecord): boolean {
  return (record.message.flags & EPHEMERAL) !== 0
}

/** Stores a new message and sends MESSAGE_CREATE to the owning shard (ephemeral ones are never dispatched). */
export function postMessage(ctx: SandboxContext, input: NewMessage): MessageRecord {
  const { channel, body } = input
  const content = typeof body.content === 'string' ? body.content : ''
  const message: MessageObject = {
    id: ctx.snowflakes.next(),
    channel_id: channel.id,
    type: input.type ?? (body.message_reference ? 19 : 0),
    content,
    author: input.author,
    attachments: attachmentsOf(ctx, body, channel.id),
    embeds: Array.isArray(body.embeds) ? body.embeds : [],
    components: Array.isArray(body.components) ? body.components : [],
    mentions: mentionsIn(ctx, content),
    mention_roles: [],
    mention_everyone: false,
    pinned: false,
    tts: body.tts === true,
    timestamp: new Date(ctx.now()).toISOString(),
    edited_timestamp: null,
    flags: (typeof body.flags === 'number' ? body.flags : 0) | (input.extraFlags ?? 0),
  }
  if (input.webhookId) message.webhook_id = input.webhookId
  if (input.source === 'interaction') {
    message.webhook_id = ctx.world.applicationId
    message.application_id = ctx.world.applicationId
  }
  if (input.interactionMetadata) message.interaction_metadata = input.interactionMetadata
  if (body.message_reference && typeof body.message_reference === 'object') {
    Object.assign(message, { message_reference: { ...(body.message_reference as object), channel_id: channel.id } })
  }
  const record: MessageRecord = {
    message,
    guildId: channel.guildId,
    source: input.source,
    webhookId: input.webhookId ?? null,
    dmUserId: channel.type === 1 ? channel.recipientId : null,
    allowedMentions: body.allowed_mentions ?? null,
    interactionId: input.interactionId ?? null,
  }
  ctx.world.messages.set(message.id, record)
  if (!isHidden(record)) ctx.gateway.dispatch('MESSAGE_CREATE', messageEventData(ctx, record), { guildId: record.guildId })
  return record
}

/** Applies an edit (only the fields present) and sends MESSAGE_UPDATE unless the message is ephemeral. */
export function editMessage(ctx: SandboxContext, record: MessageRecord, body: Record<string, unknown>): MessageRecord {
  const m = record.message
  if (typeof body.content === 'string') {
    m.content = body.content
    m.mentions = mentionsIn(ctx, body.content)
  } else if (body.content === null) {
    m.content = ''
  }
  if (Array.isArray(body.embeds)) m.embeds = body.embeds
  if (Array.isArray(body.components)) m.components = body.components
  if (body.embeds === null) m.embeds = []
  if (body.components === null) m.components = []
  if (Array.isArray(body.attachments)) m.attachments = m.attachments.filter((a) => (body.attachments as Array<{ id?: unknown }>).some((b) => b.id === (a as { id: unknown }).id))
  if (Array.isArray(body.__files)) m.attachments = [...m.attachments, ...attachmentsOf(ctx, body, m.channel_id)]
  if (typeof body.flags === 'number') m.flags = (m.flags & EPHEMERAL) | body.flags
  if (body.allowed_mentions !== undefined) record.allowedMentions = body.allowed_mentions
  m.flags &= ~LOADING
  m.edited_timestamp = new Date(ctx.now()).toISOString()
  if (!isHidden(record)) ctx.gateway.dispatch('MESSAGE_UPDATE', messageEventData(ctx, record), { guildId: record.guildId })
  return record
}

/** Removes a message and sends MESSAGE_DELETE unless it was ephemeral. */
export function deleteMessage(ctx: SandboxContext, record: MessageRecord): void {
  ctx.world.messages.delete(record.message.id)
  if (isHidden(record)) return
  const d: Record<string, unknown> = { id: record.message.id, channel_id: record.message.channel_id }
  if (record.guildId) d.guild_id = record.guildId
  ctx.gateway.dispatch('MESSAGE_DELETE', d, { guildId: record.guildId })
}

/** The bot's author object. */
export function botAuthor(ctx: SandboxContext): UserObject {
  return userPayloadById(ctx.world, ctx.world.botUserId)
}

/** What `GET /control/messages` reports for a message. */
export function controlMessageView(record: MessageRecord): Record<string, unknown> {
  const m = record.message
  const view: Record<string, unknown> = {
    id: m.id,
    channel_id: m.channel_id,
    content: m.content,
    embeds: m.embeds,
    components: m.components,
    allowed_mentions: record.allowedMentions,
    flags: m.flags,
    timestamp: m.timestamp,
    edited_timestamp: m.edited_timestamp,
    author: { id: m.author.id, username: m.author.username },
  }
  if (record.webhookId) view.webhook_id = record.webhookId
  if (record.dmUserId) view.dm_user_id = record.dmUserId
  if (m.attachments.length > 0) view.attachments = m.attachments
  return view
}
