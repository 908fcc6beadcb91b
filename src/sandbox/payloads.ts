/*
 * The Discord object shapes the fake sends for users, roles, channels, members and guilds, as discord.js expects them
 * in REST answers, gateway dispatches and interactions (full users, so discord.js caches users it has not seen).
 */
import type {
  ChannelRecord,
  GuildRecord,
  MemberRecord,
  RoleRecord,
  UserObject,
  UserRecord,
} from './world-records.js'
import type { World } from './world.js'

/** The user object Discord sends (full, so discord.js caches users it has not seen). */
export function userPayload(user: UserRecord): UserObject {
  return {
    id: user.id,
    username: user.username,
    discriminator: user.discriminator,
    global_name: user.globalName,
    avatar: null,
    bot: user.bot,
    public_flags: 0,
    flags: 0,
  }
}

/** A user object for an id, falling back to a placeholder name for users the sandbox never saw. */
export function userPayloadById(world: World, id: string): UserObject {
  const user = world.users.get(id)
  return userPayload(user ?? { id, username: `user-${id}`, globalName: null, bot: false, discriminator: '0' })
}

/** The role object Discord sends. */
export function rolePayload(role: RoleRecord): Record<string, unknown> {
  return {
    id: role.id,
    name: role.name,
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position: role.position,
    permissions: role.permissions,
    managed: role.managed,
    mentionable: false,
    flags: 0,
    ...(role.botId ? { tags: { bot_id: role.botId } } : {}),
  }
}

/** The channel object Discord sends (a DM channel lists its recipient). */
export function channelPayload(world: World, channel: ChannelRecord): Record<string, unknown> {
  if (channel.type === 1) {
    const recipient = channel.recipientId === null ? [] : [userPayloadById(world, channel.recipientId)]
    return { id: channel.id, type: 1, last_message_id: null, flags: 0, recipients: recipient }
  }
  return {
    id: channel.id,
    type: 0,
    guild_id: channel.guildId,
    name: channel.name,
    position: channel.position,
    permission_overwrites: [],
    parent_id: null,
    topic: null,
    nsfw: false,
    last_message_id: null,
    rate_limit_per_user: 0,
    flags: 0,
  }
}

/** The guild member object Discord sends. */
export function memberPayload(world: World, member: MemberRecord): Record<string, unknown> {
  return {
    user: userPayloadById(world, member.userId),
    nick: member.nick,
    avatar: null,
    banner: null,
    roles: member.roles,
    joined_at: member.joinedAt,
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
  }
}

/** The member object inside an interaction, which also carries the member's permissions. */
export function interactionMemberPayload(world: World, guild: GuildRecord, member: MemberRecord): Record<string, unknown> {
  return { ...memberPayload(world, member), permissions: world.permissionsOf(guild, member).toString() }
}

/** The guild object of REST `GET /guilds/:id`. */
export function guildPayload(world: World, guild: GuildRecord): Record<string, unknown> {
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    icon_hash: null,
    splash: null,
    discovery_splash: null,
    owner_id: guild.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    widget_enabled: false,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    roles: guild.roles.map(rolePayload),
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: guild.channelIds[0] ?? null,
    system_channel_flags: 0,
    rules_channel_id: null,
    max_members: 500000,
    vanity_url_code: null,
    description: null,
    banner: null,
    premium_tier: 0,
    premium_subscription_count: 0,
    preferred_locale: 'en-US',
    public_updates_channel_id: null,
    safety_alerts_channel_id: null,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    approximate_member_count: guild.members.size,
    approximate_presence_count: countOnline(world, guild),
  }
}

function countOnline(world: World, guild: GuildRecord): number {
  let online = 0
  for (const userId of guild.members.keys()) {
    const status = world.presences.get(userId)?.status
    if (status !== undefined && status !== 'offline') online++
  }
  return online
}
