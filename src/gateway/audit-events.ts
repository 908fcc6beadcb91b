/**
 * Turns Discord audit dispatches of whitelisted guilds into server-log jobs: message edit, delete and bulk delete,
 * member join, leave, ban and unban. Message text is kept for MESSAGE_RETENTION_DAYS in the message cache (only with
 * the MessageContent intent) so an edit or delete can say what was there before, even after a restart.
 */
import { randomUUID } from 'node:crypto'
import type { Logger } from '../lib/logger.js'
import type { CachedMessage, MessageCache } from '../redis/message-cache.js'
import type { LogJob } from '../queue/model/jobs.js'
import type { IsWhitelisted } from './guild-whitelist.js'

/** A Discord user object, the fields we use. */
interface RawUser {
  id: string
  username?: string
  global_name?: string | null
  bot?: boolean
}

/** The raw dispatches handled here. */
export interface AuditDispatch {
  t: string
  d: Record<string, unknown>
}

const MAX_DESCRIPTION = 4000
const MAX_TEXT = 1500

/** The audit event types written to the server log. */
export const AUDIT_EVENTS = ['MESSAGE_UPDATE', 'MESSAGE_DELETE', 'MESSAGE_DELETE_BULK', 'GUILD_MEMBER_ADD', 'GUILD_MEMBER_REMOVE', 'GUILD_BAN_ADD', 'GUILD_BAN_REMOVE'] as const

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

function who(user: RawUser | undefined): string {
  if (user === undefined) return 'an unknown author'
  return `${user.username ?? 'unknown'} (${user.id})`
}

/** Creates the dispatch handler; `enqueue` adds one server-log job. */
export function createAuditEvents(deps: {
  messages: MessageCache
  isWhitelisted: IsWhitelisted
  messageContent: boolean
  retentionDays: number
  enqueue: (job: LogJob, jobId: string) => Promise<void>
  log: Logger
}): (t: string, d: Record<string, unknown>) => Promise<void> {
  const { messages } = deps
  const retentionSeconds = deps.retentionDays * 24 * 3600

  const remember = async (id: string, message: CachedMessage) => {
    if (!deps.messageContent || retentionSeconds === 0) return
    await messages.put(id, message, retentionSeconds)
  }
  const recall = (id: string): Promise<CachedMessage | null> => messages.get(id)

  const write = (eventType: string, description: string, guildId: string, data: Record<string, unknown>, jobId: string = randomUUID()) =>
    deps.enqueue(
      {
        category: 'server',
        eventType,
        description: cut(description, MAX_DESCRIPTION),
        platformUsername: null,
        platformUserId: null,
        issuedBy: 'discord',
        code: null,
        source: 'gateway',
        sourceIp: null,
        data: { guild_id: guildId, ...data },
        receivedAt: Date.now(),
      },
      jobId,
    )

  return async (t, d) => {
    const guildId = typeof d.guild_id === 'string' ? d.guild_id : undefined
    if (guildId === undefined || !(await deps.isWhitelisted(guildId))) return
    switch (t) {
      case 'MESSAGE_CREATE': {
        const author = d.author as RawUser | undefined
        if (author === undefined || typeof d.id !== 'string') return
        await remember(d.id, { c: String(d.content ?? ''), a: author.id, n: author.username ?? '', ch: String(d.channel_id) })
        return
      }
      case 'MESSAGE_UPDATE': {
        // Discord also sends MESSAGE_UPDATE when a link preview loads; only real edits carry edited_timestamp.
        if (typeof d.id !== 'string' || typeof d.edited_timestamp !== 'string') return
        const before = await recall(d.id)
        const author = (d.author as RawUser | undefined) ?? (before === null ? undefined : { id: before.a, username: before.n })
        const after = typeof d.content === 'string' ? d.content : undefined
        const text = deps.messageContent
          ? `\nBefore: ${before === null ? '(not recorded)' : cut(before.c, MAX_TEXT)}\nAfter: ${after === undefined ? '(unknown)' : cut(after, MAX_TEXT)}`
          : ''
        await write('message_edit', `Message ${d.id} by ${who(author)} edited in <#${String(d.channel_id)}>${text}`, guildId, {
          channel_id: d.channel_id,
          message_id: d.id,
          author_id: author?.id ?? null,
          ...(deps.messageContent ? { before: before?.c ?? null, after: after ?? null } : {}),
        }, `edit-${d.id}-${Date.parse(d.edited_timestamp)}`)
        if (author !== undefined && after !== undefined) await remember(d.id, { c: after, a: author.id, n: author.username ?? '', ch: String(d.channel_id) })
        return
      }
      case 'MESSAGE_DELETE': {
        if (typeof d.id !== 'string') return
        const before = await recall(d.id)
        const author = before === null ? undefined : { id: before.a, username: before.n }
        const text = deps.messageContent && before !== null ? `: ${cut(before.c, MAX_TEXT)}` : ''
        await write('message_delete', `Message ${d.id} by ${who(author)} deleted in <#${String(d.channel_id)}>${text}`, guildId, {
          channel_id: d.channel_id,
          message_id: d.id,
          author_id: author?.id ?? null,
          ...(deps.messageContent ? { content: before?.c ?? null } : {}),
        }, `delete-${d.id}`)
        await messages.remove([d.id])
        return
      }
      case 'MESSAGE_DELETE_BULK': {
        const ids = Array.isArray(d.ids) ? (d.ids as string[]) : []
        const known = await Promise.all(ids.map(recall))
        const lines = ids.map((id, i) => {
          const m = known[i]
          if (m === null || m === undefined) return `${id}: (not recorded)`
          return deps.messageContent ? `${id} ${m.n}: ${cut(m.c, 200)}` : `${id} by ${m.n} (${m.a})`
        })
        await write('message_bulk_delete', `${ids.length} messages deleted in <#${String(d.channel_id)}>\n${lines.join('\n')}`, guildId, {
          channel_id: d.channel_id,
          message_ids: ids,
          messages: ids.map((id, i) => ({ id, author_id: known[i]?.a ?? null, ...(deps.messageContent ? { content: known[i]?.c ?? null } : {}) })),
        })
        await messages.remove(ids)
        return
      }
      case 'GUILD_MEMBER_ADD':
      case 'GUILD_MEMBER_REMOVE':
      case 'GUILD_BAN_ADD':
      case 'GUILD_BAN_REMOVE': {
        const user = d.user as RawUser | undefined
        if (user === undefined) return
        const [eventType, verb] = {
          GUILD_MEMBER_ADD: ['member_join', 'joined'],
          GUILD_MEMBER_REMOVE: ['member_leave', 'left'],
          GUILD_BAN_ADD: ['member_ban', 'was banned'],
          GUILD_BAN_REMOVE: ['member_unban', 'was unbanned'],
        }[t] as [string, string]
        await write(eventType, `${who(user)} ${verb}`, guildId, { user_id: user.id, username: user.username ?? null, bot: user.bot === true })
        return
      }
    }
  }
}
