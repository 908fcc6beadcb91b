/**
 * The gateway intents the bot identifies with, in one table: Discord's name and bit, the Developer Portal switch of
 * the privileged ones, and what the service loses without each. The gateway's intents, its 4014 line and
 * docs/discord.md come from here. Pure.
 */

/** One gateway intent the bot asks for. */
export interface BotIntent {
  /** Discord's name of the intent. */
  name: string
  /** Its bit, from Discord's list of gateway intents. */
  bit: number
  /** For a privileged intent, the name of its switch under "Privileged Gateway Intents" on the Bot page; else null. */
  portalSwitch: string | null
  /** What the service uses it for. */
  why: string
  /** True when the bot asks for it only with MESSAGE_CONTENT=on. */
  optional?: boolean
}

/** Every intent the bot may ask for, in bit order. */
export const BOT_INTENTS: readonly BotIntent[] = [
  { name: 'GUILDS', bit: 1 << 0, portalSwitch: null, why: 'the guilds and channels the bot is in; slash commands are registered per guild' },
  {
    name: 'GUILD_MEMBERS',
    bit: 1 << 1,
    portalSwitch: 'Server Members Intent',
    why: 'member join and leave audit entries, and the member lists (with their presences) read when a shard connects, so activity is right from the start and after an outage',
  },
  { name: 'GUILD_MODERATION', bit: 1 << 2, portalSwitch: null, why: 'ban and unban audit entries' },
  { name: 'GUILD_PRESENCES', bit: 1 << 8, portalSwitch: 'Presence Intent', why: "players' live Discord activity: without it callbacks, rpc and streams would show no activity at all" },
  { name: 'GUILD_MESSAGES', bit: 1 << 9, portalSwitch: null, why: 'message edit, delete and bulk delete audit entries' },
  { name: 'DIRECT_MESSAGES', bit: 1 << 12, portalSwitch: null, why: 'events of the DM channels the bot opens for its DMs (it acts on none of them)' },
  {
    name: 'MESSAGE_CONTENT',
    bit: 1 << 15,
    portalSwitch: 'Message Content Intent',
    why: 'the text of edited and deleted messages in audit entries; asked for only with `MESSAGE_CONTENT=on` (without it, the entries name the message, its author and channel, not what it said)',
    optional: true,
  },
]

/** The intents the bot identifies with: MESSAGE_CONTENT only when configured. */
export function botIntents(messageContent: boolean): BotIntent[] {
  return BOT_INTENTS.filter((intent) => messageContent || intent.optional !== true)
}

/** The IDENTIFY `intents` integer of `intents`. */
export function intentBits(intents: readonly BotIntent[]): number {
  return intents.reduce((bits, intent) => bits | intent.bit, 0)
}
