/**
 * `presence-link discord invite-url` from the built CLI: the URL's permissions are the table's integer and decode back
 * to exactly the table's permissions, the application id comes from --application-id or DISCORD_TOKEN, the token is
 * never printed, and what it refuses exits 64 with the reason.
 */
import t from 'tap'
import { BOT_PERMISSIONS, decodePermissions, permissionInteger } from '../../src/gateway/model/bot-permissions.js'
import { buildApp } from '../helpers/built-app.js'
import { runBuilt, type Ran } from '../helpers/run-built.js'

t.setTimeout(240_000)

let app: string

t.before(async () => {
  app = await buildApp(t, 'pl-discord-cli-')
})

/** Runs the built CLI with `env` over a clean Discord environment; storage points nowhere (the command needs none). */
const run = (args: readonly string[], env: Record<string, string>): Promise<Ran> =>
  runBuilt(app, args, { DATABASE_URL: 'mysql://nobody@127.0.0.1:1/none', REDIS_URL: 'redis://127.0.0.1:1', LOG_LEVEL: 'info', DISCORD_TOKEN: '', ...env })

const BOT_ID = '987654321098765432'
const SECRET = 'GhMo9x.Zk3sEcReT-hmac_part_0123456789abcdefghij'
const TOKEN = `${Buffer.from(BOT_ID).toString('base64').replace(/=+$/, '')}.${SECRET}`
const FIRST_LINE = 'scopes: bot, applications.commands; permissions 19584: View Audit Log, View Channels, Send Messages, Embed Links'
const WHERE_ID = 'the Application ID on the General Information page of the application in the Discord Developer Portal'
const USAGE = ['usage: presence-link discord invite-url [--application-id ID]', 'run `presence-link discord invite-url --help` for details']

t.test('from DISCORD_TOKEN: the bot id, the table\'s permissions, and not a character of the secret', async (t) => {
  const ran = await run(['discord', 'invite-url'], { DISCORD_TOKEN: TOKEN })
  t.same(ran, {
    code: 0,
    stdout: `${FIRST_LINE}\nhttps://discord.com/oauth2/authorize?client_id=${BOT_ID}&scope=bot%20applications.commands&permissions=19584\n`,
    stderr: '',
  })
  const url = new URL(ran.stdout.trim().split('\n').at(-1)!)
  t.equal(`${url.origin}${url.pathname}`, 'https://discord.com/oauth2/authorize')
  t.equal(url.searchParams.get('client_id'), BOT_ID)
  t.equal(url.searchParams.get('scope'), 'bot applications.commands')
  t.equal(url.searchParams.get('permissions'), permissionInteger(BOT_PERMISSIONS), 'the integer of the table in the code')
  t.same(decodePermissions(url.searchParams.get('permissions')!, BOT_PERMISSIONS), { names: BOT_PERMISSIONS.map((p) => p.name), unknownBits: '0' }, 'decodes to exactly the table')
  for (const part of [TOKEN, ...SECRET.split('.')]) t.notOk(`${ran.stdout}${ran.stderr}`.includes(part), 'the token is not printed')
})

t.test('--application-id wins over DISCORD_TOKEN and works without one', async (t) => {
  const expected = (id: string) => `${FIRST_LINE}\nhttps://discord.com/oauth2/authorize?client_id=${id}&scope=bot%20applications.commands&permissions=19584\n`
  t.same(await run(['discord', 'invite-url', '--application-id', '112233445566778899'], { DISCORD_TOKEN: TOKEN }), { code: 0, stdout: expected('112233445566778899'), stderr: '' })
  t.same(await run(['discord', 'invite-url', '--application-id', '112233445566778899'], {}), { code: 0, stdout: expected('112233445566778899'), stderr: '' })
})

t.test('refusals exit 64 with the reason and the usage, and never echo the token', async (t) => {
  const cases: Array<[string, string[], Record<string, string>, string]> = [
    ['no token, no flag', [], {}, `error: DISCORD_TOKEN is not set: pass --application-id ID (${WHERE_ID})`],
    [
      'a token of another shape',
      [],
      { DISCORD_TOKEN: 'not-a-bot-token-s3cr3t' },
      `error: DISCORD_TOKEN does not look like a bot token (its first part is not a base64 id): pass --application-id ID (${WHERE_ID})`,
    ],
    ['an id that is not one', ['--application-id', 'my-bot'], { DISCORD_TOKEN: TOKEN }, `error: --application-id must be a Discord id (17 to 20 digits): ${WHERE_ID}`],
    ['an id too short', ['--application-id', '1234'], {}, `error: --application-id must be a Discord id (17 to 20 digits): ${WHERE_ID}`],
  ]
  for (const [what, args, env, reason] of cases) {
    const ran = await run(['discord', 'invite-url', ...args], env)
    t.same(ran, { code: 64, stdout: '', stderr: `${[reason, ...USAGE].join('\n')}\n` }, what)
    t.notOk(ran.stderr.includes('s3cr3t') || ran.stderr.includes(SECRET), `${what}: the token is not printed`)
  }
})

t.test('--help and the group help name the command', async (t) => {
  const help = await run(['discord', '--help'], {})
  t.equal(help.code, 0)
  t.match(help.stdout, /^  invite-url \[--application-id ID\]  print the URL that adds the bot to a server, with the scopes and permissions it needs$/m)
  const top = await run(['--help'], {})
  t.match(top.stdout, /^  discord invite-url \[--application-id ID\] +print the URL that adds the bot to a server/m)
})
