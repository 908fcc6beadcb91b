/**
 * The permissions table and the invite URL: Discord's bits (as discord.js knows them), the integer, decoding it
 * back, the URL in Discord's documented form, and the application id read from a bot token (hostile tokens included).
 */
import { PermissionFlagsBits } from 'discord.js'
import t from 'tap'
import { BOT_PERMISSIONS, decodePermissions, permissionInteger } from '../../../src/gateway/model/bot-permissions.js'
import { applicationIdFromToken, inviteUrl, isDiscordId } from '../../../src/gateway/model/invite-url.js'

/** discord.js's names of Discord's permissions. */
const DISCORD_JS_NAME: Record<string, keyof typeof PermissionFlagsBits> = {
  VIEW_AUDIT_LOG: 'ViewAuditLog',
  VIEW_CHANNEL: 'ViewChannel',
  SEND_MESSAGES: 'SendMessages',
  EMBED_LINKS: 'EmbedLinks',
}

const base64 = (text: string): string => Buffer.from(text).toString('base64')

t.test('the table', async (t) => {
  t.test('each bit is the one discord.js (discord-api-types) gives that permission', async (t) => {
    t.same(BOT_PERMISSIONS.map((p) => p.name), Object.keys(DISCORD_JS_NAME))
    for (const permission of BOT_PERMISSIONS) t.equal(permission.bit, PermissionFlagsBits[DISCORD_JS_NAME[permission.name]!], permission.name)
  })

  t.test('no webhook, history, ban or administrator power', async (t) => {
    const all = BigInt(permissionInteger(BOT_PERMISSIONS))
    for (const name of ['ManageWebhooks', 'ReadMessageHistory', 'BanMembers', 'Administrator', 'ManageMessages'] as const) {
      t.equal(all & PermissionFlagsBits[name], 0n, name)
    }
  })
})

t.test('the integer and its decoding', async (t) => {
  t.equal(permissionInteger(BOT_PERMISSIONS), '19584')
  t.equal(permissionInteger([]), '0')
  const cases: Array<[string, string[], string]> = [
    ['19584', ['VIEW_AUDIT_LOG', 'VIEW_CHANNEL', 'SEND_MESSAGES', 'EMBED_LINKS'], '0'],
    ['0', [], '0'],
    ['1024', ['VIEW_CHANNEL'], '0'],
    ['19585', ['VIEW_AUDIT_LOG', 'VIEW_CHANNEL', 'SEND_MESSAGES', 'EMBED_LINKS'], '1'],
    [(1n << 40n).toString(), [], (1n << 40n).toString()],
  ]
  for (const [integer, names, unknownBits] of cases) t.same(decodePermissions(integer, BOT_PERMISSIONS), { names, unknownBits }, integer)
})

t.test('the invite URL', async (t) => {
  t.equal(
    inviteUrl('123456789012345678', '19584'),
    'https://discord.com/oauth2/authorize?client_id=123456789012345678&scope=bot%20applications.commands&permissions=19584',
  )
  const url = new URL(inviteUrl('123456789012345678', '19584'))
  t.same([...url.searchParams], [['client_id', '123456789012345678'], ['scope', 'bot applications.commands'], ['permissions', '19584']])
})

t.test('the application id from a bot token', async (t) => {
  const id = '123456789012345678'
  const cases: Array<[string, string, string | null]> = [
    ['unpadded base64, as Discord issues them', `${base64(id).replace(/=+$/, '')}.GhMo9x.${'a'.repeat(38)}`, id],
    ['padded base64', `${base64(id)}.GhMo9x.hmac`, id],
    ['a 19-digit id', `${base64('1234567890123456789').replace(/=+$/, '')}.X.Y`, '1234567890123456789'],
    ['a "Bot " prefix and spaces around', `  Bot ${base64(id)}.X.Y \n`, id],
    ['the first part alone', base64(id), id],
    ['empty', '', null],
    ['not base64', '!!!!.X.Y', null],
    ['base64 of letters', `${base64('hello world, hi')}.X.Y`, null],
    ['base64 of a short number', `${base64('1234')}.X.Y`, null],
    ['base64 of a 21-digit number', `${base64('123456789012345678901')}.X.Y`, null],
    ['a newline inside', `${base64(id).slice(0, 4)}\n${base64(id).slice(4)}.X.Y`, null],
    ['emoji', '🤖.X.Y', null],
    ['4,000 characters', 'A'.repeat(4000), null],
    ['a sandbox token', 'sandbox-token', null],
  ]
  for (const [what, token, expected] of cases) t.equal(applicationIdFromToken(token), expected, what)
})

t.test('Discord ids', async (t) => {
  const cases: Array<[string, boolean]> = [
    ['123456789012345678', true],
    ['12345678901234567', true],
    ['12345678901234567890', true],
    ['1234567890123456', false],
    ['123456789012345678901', false],
    ['', false],
    ['12345678901234567a', false],
    [' 123456789012345678', false],
  ]
  for (const [id, ok] of cases) t.equal(isDiscordId(id), ok, JSON.stringify(id))
})
