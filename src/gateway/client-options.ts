/**
 * The gateway's discord.js client options: its intents and shards, the REST base (the sandbox's in tests), no
 * mentions in anything it sends, and caches that hold little more than guilds and channels (presences, members and
 * messages are handled from raw dispatches, so caching them would only cost memory).
 */
import { Options, type ClientOptions } from 'discord.js'
import type { Config } from '../config.js'
import { botIntents, intentBits } from './model/bot-intents.js'

/** The managers cached with no entries; members and users keep only the bot's own. */
const CACHE_LIMITS = Options.cacheWithLimits({
  MessageManager: 0,
  PresenceManager: 0,
  ReactionManager: 0,
  ReactionUserManager: 0,
  GuildEmojiManager: 0,
  GuildStickerManager: 0,
  GuildScheduledEventManager: 0,
  GuildInviteManager: 0,
  GuildBanManager: 0,
  StageInstanceManager: 0,
  VoiceStateManager: 0,
  ThreadMemberManager: 0,
  AutoModerationRuleManager: 0,
  GuildMemberManager: { maxSize: 0, keepOverLimit: (member) => member.id === member.client.user.id },
  UserManager: { maxSize: 0, keepOverLimit: (user) => user.id === user.client.user.id },
})

/** The options of the gateway's client for this configuration. */
export function createClientOptions(config: Pick<Config, 'messageContent' | 'shardIds' | 'shardCount' | 'discordApi'>): ClientOptions {
  return {
    intents: intentBits(botIntents(config.messageContent)),
    shards: [...config.shardIds],
    shardCount: config.shardCount,
    ...(config.discordApi === '' ? {} : { rest: { api: config.discordApi } }),
    allowedMentions: { parse: [] },
    makeCache: CACHE_LIMITS,
  }
}
