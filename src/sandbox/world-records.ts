/*
 * The records the sandbox keeps in its world (users, guilds, channels, members, messages, webhooks, injected failures,
 * Roblox users) and the Discord object shapes it answers with. Types only: shared by every fake under src/sandbox.
 */
/** A Discord user known to the sandbox. */
export interface UserRecord {
  id: string
  username: string
  globalName: string | null
  bot: boolean
  discriminator: string
}

/** A guild role; `permissions` is Discord's decimal bitfield string. */
export interface RoleRecord {
  id: string
  name: string
  permissions: string
  position: number
  managed: boolean
  botId: string | null
}

/** A text channel (type 0) in a guild or a DM channel (type 1) with one recipient. */
export interface ChannelRecord {
  id: string
  type: 0 | 1
  name: string
  guildId: string | null
  position: number
  recipientId: string | null
}

/** A guild member; `permissions` overrides the role-derived permissions when set. */
export interface MemberRecord {
  userId: string
  roles: string[]
  nick: string | null
  joinedAt: string
  permissions: string | null
}

/** A guild with its channels (by id), roles and members (insertion order). */
export interface GuildRecord {
  id: string
  name: string
  ownerId: string
  joinedAt: string
  channelIds: string[]
  roles: RoleRecord[]
  members: Map<string, MemberRecord>
  staffRoleId: string
  botRoleId: string
  /** False when the bot was invited without the `applications.commands` scope: registering commands there is 403 50001. */
  commandsScope: boolean
}

/** Visible presence statuses; `invisible` is stored as `offline`, which is how others see it. */
export type PresenceStatus = 'online' | 'idle' | 'dnd' | 'offline'

/** A user's presence (one per user, shown in every guild they are in). */
export interface PresenceRecord {
  status: PresenceStatus
  activities: unknown[]
}

/** A Discord user object as the API sends it. */
export interface UserObject {
  id: string
  username: string
  discriminator: string
  global_name: string | null
  avatar: string | null
  bot: boolean
  public_flags: number
  flags: number
}

/** A Discord message object as the API sends it. */
export interface MessageObject {
  id: string
  channel_id: string
  type: number
  content: string
  author: UserObject
  attachments: unknown[]
  embeds: unknown[]
  components: unknown[]
  mentions: UserObject[]
  mention_roles: string[]
  mention_everyone: boolean
  pinned: boolean
  tts: boolean
  timestamp: string
  edited_timestamp: string | null
  flags: number
  webhook_id?: string
  application_id?: string
  interaction_metadata?: Record<string, unknown>
}

/** Who produced a stored message: the bot in a channel or DM, a webhook, an interaction response, or a simulated user. */
export type MessageSource = 'channel' | 'dm' | 'webhook' | 'interaction' | 'user'

/** A stored message with what the control API reports about it. */
export interface MessageRecord {
  message: MessageObject
  guildId: string | null
  source: MessageSource
  webhookId: string | null
  dmUserId: string | null
  allowedMentions: unknown
  interactionId: string | null
}

/** Failures injected on a webhook or channel: `remaining` more requests answer `status`. */
export interface FailureRule {
  status: number
  remaining: number
  retryAfter: number
}

/** A channel webhook. */
export interface WebhookRecord {
  id: string
  token: string
  channelId: string
  guildId: string
  name: string
  avatar: string | null
}

/** A registered application command as the API returns it. */
export type CommandObject = Record<string, unknown> & { id: string; name: string }

/** A Roblox user for the fake users API. */
export interface RobloxUser {
  id: number
  name: string
  displayName: string
  created: string
}
