/*
 * Which gateway sessions get which dispatch: the intent each event needs (discord.js only receives what its intents
 * ask for) and Discord's MESSAGE_CONTENT blanking of guild messages. Pure: no sockets.
 */
import { Intent } from './gateway-codes.js'

const MESSAGE_EVENTS = new Set(['MESSAGE_CREATE', 'MESSAGE_UPDATE', 'MESSAGE_DELETE', 'MESSAGE_DELETE_BULK'])

/** The intent an event needs, or null when it is always sent (READY, INTERACTION_CREATE, chunks, ...). */
export function requiredIntent(t: string, inGuild: boolean): number | null {
  if (MESSAGE_EVENTS.has(t)) return inGuild ? Intent.guildMessages : Intent.directMessages
  if (t.startsWith('MESSAGE_REACTION_')) return inGuild ? Intent.guildMessageReactions : Intent.directMessageReactions
  if (t === 'TYPING_START') return inGuild ? Intent.guildMessageTyping : Intent.directMessageTyping
  if (t === 'PRESENCE_UPDATE') return Intent.guildPresences
  if (t.startsWith('GUILD_MEMBER_') || t === 'THREAD_MEMBERS_UPDATE') return Intent.guildMembers
  if (t.startsWith('GUILD_BAN_') || t === 'GUILD_AUDIT_LOG_ENTRY_CREATE') return Intent.guildModeration
  if (t.startsWith('GUILD_ROLE_') || t.startsWith('CHANNEL_') || t.startsWith('THREAD_')) return Intent.guilds
  if (t === 'GUILD_CREATE' || t === 'GUILD_UPDATE' || t === 'GUILD_DELETE') return Intent.guilds
  return null
}

/** Discord's blanking without MESSAGE_CONTENT: guild messages not by the bot and not mentioning it lose their content. */
export function needsBlanking(t: string, d: unknown, botUserId: string): boolean {
  if (t !== 'MESSAGE_CREATE' && t !== 'MESSAGE_UPDATE') return false
  if (typeof d !== 'object' || d === null) return false
  const msg = d as { guild_id?: unknown; author?: { id?: unknown }; mentions?: Array<{ id?: unknown }> }
  if (typeof msg.guild_id !== 'string') return false
  if (msg.author?.id === botUserId) return false
  if (Array.isArray(msg.mentions) && msg.mentions.some((m) => m?.id === botUserId)) return false
  return true
}

/** A copy of a message dispatch with content, embeds, attachments, components and poll removed. */
export function blanked(d: unknown): unknown {
  const copy = { ...(d as Record<string, unknown>) }
  if ('content' in copy) copy.content = ''
  if ('embeds' in copy) copy.embeds = []
  if ('attachments' in copy) copy.attachments = []
  if ('components' in copy) copy.components = []
  if ('poll' in copy) delete copy.poll
  return copy
}
