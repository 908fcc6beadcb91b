/*
 * Discord gateway constants the fake speaks: intent bits (and which are privileged), opcodes, the close codes it sends
 * (and which of them end a session for good), HELLO's heartbeat interval and the member chunk size. Values are
 * Discord's, as discord.js expects.
 */
/** Gateway intent bits the sandbox honours. */
export const Intent = {
  guilds: 1 << 0,
  guildMembers: 1 << 1,
  guildModeration: 1 << 2,
  guildPresences: 1 << 8,
  guildMessages: 1 << 9,
  guildMessageReactions: 1 << 10,
  guildMessageTyping: 1 << 11,
  directMessages: 1 << 12,
  directMessageReactions: 1 << 13,
  directMessageTyping: 1 << 14,
  messageContent: 1 << 15,
} as const

/** Discord's privileged intents: IDENTIFY may ask for them only once they are switched on in the Developer Portal. */
export const PRIVILEGED_INTENTS = {
  GUILD_PRESENCES: Intent.guildPresences,
  GUILD_MEMBERS: Intent.guildMembers,
  MESSAGE_CONTENT: Intent.messageContent,
} as const

/** Gateway opcodes. */
export const Op = {
  dispatch: 0,
  heartbeat: 1,
  identify: 2,
  presenceUpdate: 3,
  voiceStateUpdate: 4,
  resume: 6,
  reconnect: 7,
  requestGuildMembers: 8,
  invalidSession: 9,
  hello: 10,
  heartbeatAck: 11,
} as const

/** Gateway close codes the sandbox sends. */
export const CloseCode = {
  unknownError: 4000,
  unknownOpcode: 4001,
  decodeError: 4002,
  notAuthenticated: 4003,
  authenticationFailed: 4004,
  alreadyAuthenticated: 4005,
  invalidShard: 4010,
  invalidApiVersion: 4012,
  invalidIntents: 4013,
  disallowedIntents: 4014,
} as const

/** Heartbeat interval announced in HELLO, as Discord does. */
export const HEARTBEAT_INTERVAL_MS = 41250

/** Members per GUILD_MEMBERS_CHUNK, as Discord sends them. */
export const MEMBERS_PER_CHUNK = 1000

/** Close codes after which Discord forgets the session, so a RESUME would fail. */
export const SESSION_ENDING_CODES = new Set([1000, 1001, 4004, 4007, 4009, 4010, 4011, 4012, 4013, 4014])
