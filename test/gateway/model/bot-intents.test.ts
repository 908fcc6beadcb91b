/** The intents table: Discord's bits (as discord.js knows them), the privileged ones, and the integers identified with. */
import { GatewayIntentBits } from 'discord.js'
import t from 'tap'
import { BOT_INTENTS, botIntents, intentBits } from '../../../src/gateway/model/bot-intents.js'

/** discord.js's names of Discord's intents. */
const DISCORD_JS_NAME: Record<string, keyof typeof GatewayIntentBits> = {
  GUILDS: 'Guilds',
  GUILD_MEMBERS: 'GuildMembers',
  GUILD_MODERATION: 'GuildModeration',
  GUILD_PRESENCES: 'GuildPresences',
  GUILD_MESSAGES: 'GuildMessages',
  DIRECT_MESSAGES: 'DirectMessages',
  MESSAGE_CONTENT: 'MessageContent',
}

t.test('each bit is the one discord.js (discord-api-types) gives that intent', async (t) => {
  for (const intent of BOT_INTENTS) t.equal(intent.bit, GatewayIntentBits[DISCORD_JS_NAME[intent.name]!], intent.name)
})

t.test("the privileged intents are Discord's three, each with its Developer Portal switch", async (t) => {
  t.same(
    BOT_INTENTS.filter((i) => i.portalSwitch !== null).map((i) => [i.name, i.portalSwitch]),
    [
      ['GUILD_MEMBERS', 'Server Members Intent'],
      ['GUILD_PRESENCES', 'Presence Intent'],
      ['MESSAGE_CONTENT', 'Message Content Intent'],
    ],
  )
})

t.test('the integers identified with', async (t) => {
  const cases: Array<[boolean, number, string[]]> = [
    [false, 4871, ['GUILDS', 'GUILD_MEMBERS', 'GUILD_MODERATION', 'GUILD_PRESENCES', 'GUILD_MESSAGES', 'DIRECT_MESSAGES']],
    [true, 37639, ['GUILDS', 'GUILD_MEMBERS', 'GUILD_MODERATION', 'GUILD_PRESENCES', 'GUILD_MESSAGES', 'DIRECT_MESSAGES', 'MESSAGE_CONTENT']],
  ]
  for (const [messageContent, bits, names] of cases) {
    const intents = botIntents(messageContent)
    t.equal(intentBits(intents), bits, `MESSAGE_CONTENT=${messageContent ? 'on' : 'off'}`)
    t.same(intents.map((i) => i.name), names)
  }
  t.equal(intentBits([]), 0, 'no intents')
})
