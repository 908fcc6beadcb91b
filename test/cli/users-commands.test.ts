/**
 * `presence-link users show|forget --chat-user ID` against the real front, workers' log consumer, MariaDB and Redis:
 * show prints what /mydata shows (and --json its export); forget without --yes prints what would go and changes
 * nothing; with --yes the code is unknown everywhere, as after /forget.
 */
import t from 'tap'
import { runCommand } from '../../src/cli/dispatch.js'
import { createPushSubscriptions } from '../../src/redis/push-subscriptions.js'
import { eventually, getText, postJson, setShardMark, startStack, type Stack } from '../helpers/stack.js'

const USER = '840000000000000001'
let stack: Stack

t.before(async () => {
  stack = await startStack(t, { env: { RATE_LIMITS: 'off', FORGET_AFTER_LEAVE_DAYS: '14', LOG_RETENTION_DAYS: '60' }, consumers: ['log', 'bind'] })
  await setShardMark(stack, 0, Date.now() + 3_600_000)
})

t.test('users show, then users forget', async (t) => {
  const { code } = await stack.codes.issue(USER)
  await stack.codes.bind(code.code, { platformUserId: '91', platformUsername: 'Cli_R' }, { source: 'test' })
  await stack.codes.setShare(USER, 'media')
  await stack.presence.set(code.code, { shard: 0, status: 'online', activity: 'Listening to Spotify,\nSong;\n' }, 'media')
  for (const [event, description] of [['warn', 'Spamming'], ['kick', 'Exploiting']]) {
    const res = await postJson(`${stack.api}/log/moderation`, { event_type: event, description, issued_by: 'ModBob', code: code.code }, `Bearer ${stack.apiKey}`)
    t.equal(res.status, 200)
  }
  await eventually(async () => ((await stack.db.selectFrom('infractions').select('id').where('code', '=', code.code).execute()).length === 2 ? true : undefined), 10_000, 'the infractions')
  await createPushSubscriptions(stack.redis, stack.ctx.keys).subscribe('bootstrap', 4001, 'job-1', [code.code], 60_000)

  t.test('show prints what /mydata shows', async (t) => {
    const out = await runCommand(stack.ctx, ['users', 'show', '--chat-user', USER])
    t.equal(out.exitCode, 0)
    const text = out.lines.join('\n')
    t.match(text, `Code: ${code.code} (active, linked; issued `)
    t.match(text, 'Game account: Cli_R (id 91), linked ')
    t.match(text, 'Share setting: media: games see only what you listen to, watch or stream.')
    t.match(text, 'Detection: on; live activity held now: yes.')
    t.match(text, 'Game keys that used your code in the last 24 h:\n- test-server: 2 log entries, 0 server(s) subscribed to its pushes\n- bootstrap: 0 log entries, 1 server(s) subscribed to its pushes')
    t.match(text, 'Reads of callbacks, rpc and streams carry no key: which games read your code there is not recorded.')
    t.match(text, /Infractions: 2; latest \d{4}-\d\d-\d\d \d\d:\d\d UTC, kick by ModBob: Exploiting/)
    t.match(text, '14 days after you leave every server of this service')
    t.match(text, 'deleted 60 days after they were logged')
    t.notMatch(text, '**', 'no Discord markdown on a terminal')
    const json = JSON.parse((await runCommand(stack.ctx, ['users', 'show', '--chat-user', USER, '--json'])).lines.join('\n'))
    t.match(json, {
      chat_user_id: USER,
      code: { code: code.code, state: 'active', paused: false, share: 'media', game_account: { username: 'Cli_R', id: '91' } },
      retired_codes: [],
      live_activity_held: true,
      key_uses: { window_hours: 24, public_reads_recorded: false },
      infractions: { total: 2, latest: { event_type: 'kick', issued_by: 'ModBob' } },
    })
    t.equal(json.deletion.length, 5)
  })

  t.test('forget without --yes prints what would be erased and changes nothing', async (t) => {
    const before = await stack.db.selectFrom('codes').selectAll().where('code', '=', code.code).executeTakeFirstOrThrow()
    const out = await runCommand(stack.ctx, ['users', 'forget', '--chat-user', USER])
    t.same(out, {
      lines: [
        `would erase chat user ${USER}:`,
        `codes: ${code.code} (active, linked to Cli_R (91))`,
        'infractions whose link to the user is cut: 2',
        'log entries whose "issued by" names the user: 0',
        'also: the Redis copies (holder, presence, share setting), push subscriptions naming the codes',
        'nothing changed: run again with --yes to erase',
      ],
      exitCode: 0,
    })
    t.same(await stack.db.selectFrom('codes').selectAll().where('code', '=', code.code).executeTakeFirstOrThrow(), before)
    await eventually(async () => ((await getText(`${stack.api}/callbacks/${code.code}`)).text.includes('Listening to Spotify') ? true : undefined), 10_000, 'the presence still shown')
  })

  t.test('forget --yes erases as /forget does', async (t) => {
    const out = await runCommand(stack.ctx, ['users', 'forget', '--chat-user', USER, '--yes'])
    t.same(out, { lines: [`erased chat user ${USER}: 1 code(s) now unknown everywhere (${code.code}), 2 infraction(s) unlinked, 0 log entries renamed, 1 push subscription(s) trimmed`], exitCode: 0 })
    await eventually(async () => ((await getText(`${stack.api}/callbacks/${code.code}`)).text === `{${code.code}:\n"Code not found";\n}\n` ? true : undefined), 10_000, 'Code not found')
    const bind = await postJson(`${stack.api}/bind`, { code: code.code, platform_username: 'Cli_R', platform_user_id: 91 }, `Bearer ${stack.apiKey}`)
    t.match(bind, { status: 404, body: { detail: { status: 'not_found' } } })
    t.same(await stack.db.selectFrom('infractions').select('chat_user_id').where('code', '=', code.code).execute(), [{ chat_user_id: '' }, { chat_user_id: '' }])
    const trail = await stack.db.selectFrom('log_entries').select(['issued_by', 'source']).where('event_type', '=', 'data_erased').executeTakeFirstOrThrow()
    t.match(trail, { source: 'cli', issued_by: /^cli:/ })
    t.same((await runCommand(stack.ctx, ['users', 'show', '--chat-user', USER])).lines, [`the service keeps nothing about chat user ${USER}`])
    t.same((await runCommand(stack.ctx, ['users', 'forget', '--chat-user', USER, '--yes'])).lines, [`the service keeps nothing about chat user ${USER}: nothing to erase`])
  })

  t.test('a bad id is a usage error', async (t) => {
    t.equal((await runCommand(stack.ctx, ['users', 'show', '--chat-user', 'bob'])).exitCode, 64)
    t.equal((await runCommand(stack.ctx, ['users', 'forget', '--chat-user', '12a'])).exitCode, 64)
  })
})
