/*
 * The sandbox's world: the one in-memory state every fake reads and writes (Discord guilds, channels, roles, members,
 * presences, messages, webhooks, commands, Roblox users), seeded with fixed ids so tests and docs can name them.
 */
import type {
  ChannelRecord,
  CommandObject,
  FailureRule,
  GuildRecord,
  MemberRecord,
  MessageRecord,
  PresenceRecord,
  RobloxUser,
  UserRecord,
  WebhookRecord,
} from './world-records.js'
import { shardForGuild, type Snowflakes } from './snowflakes.js'

/** Fixed ids of the default world, so tests and docs can name them. */
export const DefaultIds = {
  guild: '100000000000000001',
  general: '100000000000000011',
  serverLog: '100000000000000012',
  ingameLog: '100000000000000013',
  moderationLog: '100000000000000014',
  staffRole: '100000000000000021',
  botRole: '100000000000000022',
  application: '100000000000000100',
  owner: '100000000000000101',
} as const

/** Names of the text channels every sandbox guild gets, in position order. */
export const GUILD_CHANNEL_NAMES = ['general', 'server-log', 'ingame-log', 'moderation-log'] as const

/** Permission bits the sandbox uses by name. */
export const Permission = {
  createInstantInvite: 1n << 0n,
  kickMembers: 1n << 1n,
  banMembers: 1n << 2n,
  administrator: 1n << 3n,
  manageChannels: 1n << 4n,
  manageGuild: 1n << 5n,
  addReactions: 1n << 6n,
  viewAuditLog: 1n << 7n,
  viewChannel: 1n << 10n,
  sendMessages: 1n << 11n,
  manageMessages: 1n << 13n,
  embedLinks: 1n << 14n,
  attachFiles: 1n << 15n,
  readMessageHistory: 1n << 16n,
  changeNickname: 1n << 26n,
  manageNicknames: 1n << 27n,
  manageRoles: 1n << 28n,
  useApplicationCommands: 1n << 31n,
  moderateMembers: 1n << 40n,
} as const

/** Every permission bit Discord defines today (what an administrator effectively has). */
export const ALL_PERMISSIONS = (1n << 51n) - 1n

const EVERYONE_PERMISSIONS =
  Permission.createInstantInvite |
  Permission.addReactions |
  Permission.viewChannel |
  Permission.sendMessages |
  Permission.embedLinks |
  Permission.attachFiles |
  Permission.readMessageHistory |
  Permission.changeNickname |
  Permission.useApplicationCommands

const STAFF_PERMISSIONS =
  EVERYONE_PERMISSIONS |
  Permission.kickMembers |
  Permission.banMembers |
  Permission.manageGuild |
  Permission.viewAuditLog |
  Permission.manageMessages |
  Permission.manageNicknames |
  Permission.manageRoles |
  Permission.moderateMembers

/** Fields accepted when adding or updating a member. */
export interface MemberInput {
  id: string
  username: string
  globalName?: string | null
  roles?: string[]
  permissions?: string | null
  nick?: string | null
}

/** Everything the fake Discord and Roblox know, plus the operations that keep it consistent. */
export interface World {
  readonly applicationId: string
  readonly botUserId: string
  readonly defaultGuildId: string
  readonly shardCount: number
  readonly users: Map<string, UserRecord>
  readonly guilds: Map<string, GuildRecord>
  readonly channels: Map<string, ChannelRecord>
  readonly presences: Map<string, PresenceRecord>
  readonly messages: Map<string, MessageRecord>
  readonly webhooks: Map<string, WebhookRecord>
  readonly webhookFailures: Map<string, FailureRule>
  readonly channelFailures: Map<string, FailureRule>
  readonly globalCommands: CommandObject[]
  readonly guildCommands: Map<string, CommandObject[]>
  readonly robloxUsers: Map<number, RobloxUser>
  robloxFailure: number | null
  /** Adds a guild with the standard channels and roles; `shard` picks an id routed to that shard. */
  addGuild(input: { id?: string; name: string; shard?: number; commandsScope?: boolean }): GuildRecord
  /** Adds a member (creating or renaming the user); `created` tells add from update. */
  upsertMember(guild: GuildRecord, input: MemberInput): { member: MemberRecord; created: boolean }
  /** The guilds the user is a member of. */
  guildsOf(userId: string): GuildRecord[]
  /** The stable DM channel between the bot and a user. */
  dmChannel(userId: string): ChannelRecord
  /** The member's effective permissions (its override, else @everyone plus its roles; administrator means all). */
  permissionsOf(guild: GuildRecord, member: MemberRecord): bigint
  /** Shard owning a guild under the sandbox's shard count. */
  shardOf(guildId: string): number
  /** Clears members, users, presences, messages, webhooks, failures and Roblox users; keeps guilds and commands. */
  reset(): void
}

/** Settings for {@link createWorld}. */
export interface WorldOptions {
  snowflakes: Snowflakes
  now: () => number
  shardCount: number
  defaultGuildId?: string
}

/** A guild record with its three roles (@everyone, Staff, the bot's managed role) and no channels or members yet. */
function guildRecord(
  id: string,
  name: string,
  ids: { staff: string; botRole: string },
  bot: UserRecord,
  ownerId: string,
  joinedAt: string,
): GuildRecord {
  return {
    id,
    name,
    ownerId,
    joinedAt,
    channelIds: [],
    roles: [
      { id, name: '@everyone', permissions: EVERYONE_PERMISSIONS.toString(), position: 0, managed: false, botId: null },
      { id: ids.staff, name: 'Staff', permissions: STAFF_PERMISSIONS.toString(), position: 1, managed: false, botId: null },
      {
        id: ids.botRole,
        name: bot.username,
        permissions: Permission.administrator.toString(),
        position: 2,
        managed: true,
        botId: bot.id,
      },
    ],
    members: new Map(),
    staffRoleId: ids.staff,
    botRoleId: ids.botRole,
    commandsScope: true,
  }
}

/** {@link World.upsertMember} over the world's users; `iso` stamps a new member's join time. */
function upsertMemberIn(
  users: Map<string, UserRecord>,
  iso: () => string,
  guild: GuildRecord,
  input: MemberInput,
): { member: MemberRecord; created: boolean } {
  const existingUser = users.get(input.id)
  users.set(input.id, {
    id: input.id,
    username: input.username,
    globalName: input.globalName !== undefined ? input.globalName : (existingUser?.globalName ?? null),
    bot: existingUser?.bot ?? false,
    discriminator: '0',
  })
  const existing = guild.members.get(input.id)
  if (existing) {
    if (input.roles) existing.roles = [...input.roles]
    if (input.permissions !== undefined) existing.permissions = input.permissions
    if (input.nick !== undefined) existing.nick = input.nick
    return { member: existing, created: false }
  }
  const member: MemberRecord = {
    userId: input.id,
    roles: input.roles ? [...input.roles] : [],
    nick: input.nick ?? null,
    joinedAt: iso(),
    permissions: input.permissions ?? null,
  }
  guild.members.set(input.id, member)
  return { member, created: true }
}

/** {@link World.permissionsOf}. */
function permissionsOf(guild: GuildRecord, member: MemberRecord): bigint {
  if (member.permissions !== null) return BigInt(member.permissions)
  let bits = 0n
  for (const role of guild.roles) {
    if (role.id === guild.id || member.roles.includes(role.id)) bits |= BigInt(role.permissions)
  }
  if (guild.ownerId === member.userId || (bits & Permission.administrator) !== 0n) return ALL_PERMISSIONS
  return bits
}

/** Creates the default world: the bot application, guild "Sandbox" with its channels, @everyone, Staff and the bot's role. */
export function createWorld(options: WorldOptions): World {
  const { snowflakes, now, shardCount } = options
  const iso = (): string => new Date(now()).toISOString()
  const users = new Map<string, UserRecord>()
  const guilds = new Map<string, GuildRecord>()
  const channels = new Map<string, ChannelRecord>()
  const dmByUser = new Map<string, string>()
  const botUserId = DefaultIds.application
  const defaultGuildId = options.defaultGuildId ?? DefaultIds.guild

  const bot: UserRecord = { id: botUserId, username: 'Presence Link Sandbox', globalName: null, bot: true, discriminator: '0' }
  const owner: UserRecord = { id: DefaultIds.owner, username: 'sandbox-owner', globalName: 'Sandbox Owner', bot: false, discriminator: '0' }
  const seedUsers = (): void => {
    users.set(bot.id, bot)
    users.set(owner.id, owner)
  }
  seedUsers()

  const makeGuild = (id: string, name: string, ids: { channels: string[]; staff: string; botRole: string }): GuildRecord => {
    const guild = guildRecord(id, name, ids, bot, owner.id, iso())
    GUILD_CHANNEL_NAMES.forEach((channelName, position) => {
      const channelId = ids.channels[position] ?? snowflakes.next()
      channels.set(channelId, { id: channelId, type: 0, name: channelName, guildId: id, position, recipientId: null })
      guild.channelIds.push(channelId)
    })
    addBotMember(guild)
    guilds.set(id, guild)
    return guild
  }

  const addBotMember = (guild: GuildRecord): void => {
    guild.members.set(bot.id, { userId: bot.id, roles: [guild.botRoleId], nick: null, joinedAt: guild.joinedAt, permissions: null })
  }

  makeGuild(defaultGuildId, 'Sandbox', {
    channels: [DefaultIds.general, DefaultIds.serverLog, DefaultIds.ingameLog, DefaultIds.moderationLog],
    staff: DefaultIds.staffRole,
    botRole: DefaultIds.botRole,
  })

  const world: World = {
    applicationId: botUserId,
    botUserId,
    defaultGuildId,
    shardCount,
    users,
    guilds,
    channels,
    presences: new Map(),
    messages: new Map(),
    webhooks: new Map(),
    webhookFailures: new Map(),
    channelFailures: new Map(),
    globalCommands: [],
    guildCommands: new Map(),
    robloxUsers: new Map(),
    robloxFailure: null,

    addGuild(input) {
      const id = input.id ?? (input.shard === undefined ? snowflakes.next() : snowflakes.nextOnShard(input.shard, shardCount))
      const guild = makeGuild(id, input.name, {
        channels: GUILD_CHANNEL_NAMES.map(() => snowflakes.next()),
        staff: snowflakes.next(),
        botRole: snowflakes.next(),
      })
      guild.commandsScope = input.commandsScope ?? true
      return guild
    },

    upsertMember(guild, input) {
      return upsertMemberIn(users, iso, guild, input)
    },

    guildsOf(userId) {
      return [...guilds.values()].filter((g) => g.members.has(userId))
    },

    dmChannel(userId) {
      const existing = dmByUser.get(userId)
      const found = existing === undefined ? undefined : channels.get(existing)
      if (found) return found
      const channel: ChannelRecord = { id: snowflakes.next(), type: 1, name: '', guildId: null, position: 0, recipientId: userId }
      channels.set(channel.id, channel)
      dmByUser.set(userId, channel.id)
      return channel
    },

    permissionsOf,

    shardOf(guildId) {
      return shardForGuild(guildId, shardCount)
    },

    reset() {
      for (const guild of guilds.values()) {
        guild.members.clear()
        addBotMember(guild)
      }
      users.clear()
      seedUsers()
      for (const channelId of dmByUser.values()) channels.delete(channelId)
      dmByUser.clear()
      world.presences.clear()
      world.messages.clear()
      world.webhooks.clear()
      world.webhookFailures.clear()
      world.channelFailures.clear()
      world.robloxUsers.clear()
      world.robloxFailure = null
    },
  }
  return world
}
