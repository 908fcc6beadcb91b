/**
 * `presence-link guilds list` shows what the running gateway checks. In sandbox mode serve adds the sandbox's guild to
 * its parts' GUILD_WHITELIST only, so the CLI's own environment never had it and the list used to say "no whitelisted
 * guilds" while the gateway logged that guild's events. Run with the real built serve and the real built CLI.
 */
import { userInfo } from 'node:os'
import t from 'tap'
import { buildApp, startService } from '../helpers/built-app.js'
import { runBuilt, type Ran } from '../helpers/run-built.js'
import { freePort } from '../helpers/scratch.js'
import { eventually, startStack, type Stack } from '../helpers/stack.js'

t.setTimeout(300_000)

const NO_GATEWAY = 'note: no gateway has published its GUILD_WHITELIST under this REDIS_PREFIX (each does when it starts), so the guilds it adds are not shown'

let stack: Stack
let app: string

t.before(async () => {
  const [started, built] = await Promise.all([startStack(t, { front: false, consumers: [] }), buildApp(t, 'pl-guilds-')])
  stack = started
  app = built
})

/** Runs the built CLI against this file's database and prefix, with an empty GUILD_WHITELIST of its own. */
const cli = (args: readonly string[]): Promise<Ran> =>
  runBuilt(app, args, { DATABASE_URL: stack.config.databaseUrl, REDIS_URL: stack.config.redisUrl, REDIS_PREFIX: stack.config.redisPrefix, GUILD_WHITELIST: '', LOG_LEVEL: 'silent' })

t.test('guilds list under serve in sandbox mode shows the sandbox guild the gateway logs, and where each guild comes from', async (t) => {
  const added = '300000000000000003'
  const fromEnv = '200000000000000002'
  t.same(await cli(['guilds', 'list']), { code: 0, stdout: `${NO_GATEWAY}\nno whitelisted guilds\n`, stderr: '' }, 'before any gateway started')
  t.same(await cli(['guilds', 'add', added]), { code: 0, stdout: `whitelisted ${added}\n`, stderr: '' })
  const addedLine = async () => {
    const row = await stack.db.selectFrom('guild_whitelist').selectAll().where('guild_id', '=', added).executeTakeFirstOrThrow()
    return `${added}\tadded by cli:${userInfo().username} at ${row.added_at.toISOString()}`
  }
  t.same(await cli(['guilds', 'list']), { code: 0, stdout: `${NO_GATEWAY}\n${await addedLine()}\n`, stderr: '' })

  const [port, sandboxPort] = [await freePort(), await freePort()]
  const service = startService(t, app, stack, process.execPath, ['dist/src/serve.js'], { PORT: String(port), SANDBOX_PORT: String(sandboxPort), GUILD_WHITELIST: fromEnv })
  await eventually(async () => (service.output().includes('presence-link is up at') ? true : undefined), 180_000, `serve up; output:\n${service.output().slice(-3000)}`)
  const sandbox = `http://127.0.0.1:${sandboxPort}/control`
  const { defaultGuildId } = (await (await fetch(`${sandbox}/state`)).json()) as { defaultGuildId: string }

  // Read by hand: this test also runs against the code from before the record existed.
  const published = JSON.parse((await stack.redis.get(`${stack.ctx.keys.prefix}:guilds:env`)) ?? '{}') as { guilds?: string[]; at?: string }
  t.same(published.guilds, [fromEnv, defaultGuildId], "the gateway published serve's GUILD_WHITELIST with the sandbox guild")
  const from = `GUILD_WHITELIST of the gateway (shards 0 of 1, started ${published.at})`
  t.same(await cli(['guilds', 'list']), { code: 0, stdout: `${fromEnv}\t${from}\n${defaultGuildId}\t${from}\n${await addedLine()}\n`, stderr: '' })

  // What the list says is what the gateway does: an audit event of the sandbox guild is logged.
  const user = { id: '820000000000000009', username: 'listed', discriminator: '0', global_name: null, avatar: null, bot: false }
  await fetch(`${sandbox}/dispatch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ t: 'GUILD_BAN_REMOVE', d: { guild_id: defaultGuildId, user } }) })
  const row = await eventually(() => stack.db.selectFrom('log_entries').selectAll().where('event_type', '=', 'member_unban').executeTakeFirst(), 30_000, 'the unban logged')
  t.equal(JSON.parse(row.data!).guild_id, defaultGuildId)
})
