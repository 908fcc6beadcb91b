/*
 * Gateway dispatch payloads the fake builds from the world: READY (with the `application` discord.js needs), GUILD_CREATE
 * (members and online presences, only the bot's member when large) and the presence objects of chunks.
 */
import { channelPayload, guildPayload, memberPayload, userPayload } from '../payloads.js'
import type { GuildRecord, PresenceRecord } from '../world-records.js'
import type { World } from '../world.js'

/** Guilds with more members than this are sent "large": GUILD_CREATE carries only the bot's member. */
export const LARGE_GUILD_MEMBERS = 1000

/** The presence object of GUILD_CREATE and member chunks (`user` holds only the id there). */
export function presencePayload(userId: string, presence: PresenceRecord): Record<string, unknown> {
  return {
    user: { id: userId },
    status: presence.status,
    activities: presence.activities,
    client_status: clientStatus(presence),
  }
}

/** `client_status` for a presence: one desktop session unless offline. */
export function clientStatus(presence: PresenceRecord): Record<string, string> {
  return presence.status === 'offline' ? {} : { desktop: presence.status }
}

/** The GUILD_CREATE payload: every member and online presence, or only the bot's when the guild is large. */
export function guildCreatePayload(world: World, guild: GuildRecord, withPresences: boolean): Record<string, unknown> {
  const large = guild.members.size > LARGE_GUILD_MEMBERS
  const members = large ? [guild.members.get(world.botUserId)].filter((m) => m !== undefined) : [...guild.members.values()]
  const presences: Record<string, unknown>[] = []
  if (withPresences) {
    for (const member of members) {
      const presence = world.presences.get(member.userId)
      if (presence && presence.status !== 'offline') presences.push(presencePayload(member.userId, presence))
    }
  }
  const base = guildPayload(world, guild)
  delete base.approximate_member_count
  delete base.approximate_presence_count
  return {
    ...base,
    joined_at: guild.joinedAt,
    large,
    unavailable: false,
    member_count: guild.members.size,
    voice_states: [],
    members: members.map((m) => memberPayload(world, m)),
    channels: guild.channelIds.flatMap((id) => {
      const channel = world.channels.get(id)
      return channel ? [channelPayload(world, channel)] : []
    }),
    threads: [],
    presences,
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  }
}

/** What READY needs besides the world: the new session, its shard and the guilds it owns. */
export interface ReadyInput {
  sessionId: string
  shard: [number, number]
  guilds: GuildRecord[]
  resumeGatewayUrl: string
}

/** The READY payload; `application` is required, discord.js crashes without it. */
export function readyPayload(world: World, input: ReadyInput): Record<string, unknown> {
  const bot = world.users.get(world.botUserId)
  return {
    v: 10,
    user: bot ? { ...userPayload(bot), verified: true, mfa_enabled: false, email: null } : null,
    guilds: input.guilds.map((g) => ({ id: g.id, unavailable: true })),
    session_id: input.sessionId,
    session_type: 'normal',
    resume_gateway_url: input.resumeGatewayUrl,
    shard: input.shard,
    application: { id: world.applicationId, flags: 0 },
    private_channels: [],
    presences: [],
    relationships: [],
    guild_join_requests: [],
    user_settings: {},
    geo_ordered_rtc_regions: [],
    _trace: ['["presence-link-sandbox",{"micros":0}]'],
  }
}
