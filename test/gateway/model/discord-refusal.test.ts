/** Recognising Discord's refusals (close codes, the login error) and the one line each gets, word for word. */
import t from 'tap'
import { botIntents, BOT_INTENTS } from '../../../src/gateway/model/bot-intents.js'
import { refusalLine, refusalOfClose, refusalOfLoginError } from '../../../src/gateway/model/discord-refusal.js'

const PORTAL = 'the Discord Developer Portal (https://discord.com/developers/applications)'

t.test('close codes: only 4004 and 4014 are refusals', async (t) => {
  const cases: Array<[number, unknown]> = [
    [4004, { kind: 'token', via: 'gateway' }],
    [4014, { kind: 'intents' }],
    [4000, null],
    [4007, null],
    [4009, null],
    [4013, null],
    [1000, null],
    [1006, null],
  ]
  for (const [code, refusal] of cases) t.same(refusalOfClose(code), refusal, String(code))
})

t.test("login errors: only discord.js's TokenInvalid (a 401 from GET /gateway/bot)", async (t) => {
  const tokenInvalid = Object.assign(new Error('An invalid token was provided.'), { code: 'TokenInvalid' })
  const cases: Array<[string, unknown, unknown]> = [
    ['TokenInvalid', tokenInvalid, { kind: 'token', via: 'login' }],
    ['disallowed intents', new Error('Used disallowed intents'), null],
    ['network', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), null],
    ['a bare string', 'TokenInvalid', null],
    ['null', null, null],
    ['undefined', undefined, null],
  ]
  for (const [what, err, refusal] of cases) t.same(refusalOfLoginError(err), refusal, what)
})

t.test('the lines', async (t) => {
  const cases: Array<[string, Parameters<typeof refusalLine>, { message: string; fields: Record<string, unknown> }]> = [
    [
      'a token refused at login',
      [{ kind: 'token', via: 'login' }, botIntents(false)],
      {
        message:
          'Discord rejected DISCORD_TOKEN (401 Unauthorized at login): the token is wrong or was reset. Get a new one with ' +
          `"Reset Token" on the Bot page of the application in ${PORTAL}, put it in DISCORD_TOKEN, then start the gateway again.`,
        fields: { status: 401 },
      },
    ],
    [
      'a token refused by the gateway',
      [{ kind: 'token', via: 'gateway' }, botIntents(true)],
      {
        message:
          'Discord rejected DISCORD_TOKEN (gateway close 4004, authentication failed): the token is wrong or was reset. Get a ' +
          `new one with "Reset Token" on the Bot page of the application in ${PORTAL}, put it in DISCORD_TOKEN, then start the gateway again.`,
        fields: { closeCode: 4004 },
      },
    ],
    [
      'intents, MESSAGE_CONTENT off',
      [{ kind: 'intents' }, botIntents(false)],
      {
        message:
          'Discord refused the gateway intents (close 4014, disallowed intents): the bot asks for GUILDS, GUILD_MEMBERS, ' +
          'GUILD_MODERATION, GUILD_PRESENCES, GUILD_MESSAGES, DIRECT_MESSAGES (4871), of which GUILD_MEMBERS and GUILD_PRESENCES ' +
          'are privileged. Turn on "Server Members Intent" and "Presence Intent" under "Privileged Gateway Intents" on the Bot ' +
          `page of the application in ${PORTAL}, then start the gateway again.`,
        fields: { closeCode: 4014, intents: 4871, privileged: ['GUILD_MEMBERS', 'GUILD_PRESENCES'] },
      },
    ],
    [
      'intents, MESSAGE_CONTENT on',
      [{ kind: 'intents' }, botIntents(true)],
      {
        message:
          'Discord refused the gateway intents (close 4014, disallowed intents): the bot asks for GUILDS, GUILD_MEMBERS, ' +
          'GUILD_MODERATION, GUILD_PRESENCES, GUILD_MESSAGES, DIRECT_MESSAGES, MESSAGE_CONTENT (37639), of which GUILD_MEMBERS, ' +
          'GUILD_PRESENCES and MESSAGE_CONTENT are privileged. Turn on "Server Members Intent", "Presence Intent" and "Message ' +
          `Content Intent" under "Privileged Gateway Intents" on the Bot page of the application in ${PORTAL} (or set ` +
          'MESSAGE_CONTENT=off to run without message text), then start the gateway again.',
        fields: { closeCode: 4014, intents: 37639, privileged: ['GUILD_MEMBERS', 'GUILD_PRESENCES', 'MESSAGE_CONTENT'] },
      },
    ],
    [
      'intents with a single privileged one',
      [{ kind: 'intents' }, BOT_INTENTS.filter((i) => i.name === 'GUILDS' || i.name === 'GUILD_PRESENCES')],
      {
        message:
          'Discord refused the gateway intents (close 4014, disallowed intents): the bot asks for GUILDS, GUILD_PRESENCES (257), ' +
          'of which GUILD_PRESENCES is privileged. Turn on "Presence Intent" under "Privileged Gateway Intents" on the Bot page ' +
          `of the application in ${PORTAL}, then start the gateway again.`,
        fields: { closeCode: 4014, intents: 257, privileged: ['GUILD_PRESENCES'] },
      },
    ],
  ]
  for (const [what, args, line] of cases) t.same(refusalLine(...args), line, what)
})
