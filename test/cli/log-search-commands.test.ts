/**
 * `presence-link logs search` against the real MariaDB, with entries stored directly and one through the API and the
 * log consumer: the table and the JSON exactly, every filter, pages, and each refused argument with the exit status
 * the other commands use (2: the line does not parse, 64: the command refuses it, 1: no such entry). Which stream
 * each goes to is the CLI's, for every command (test/cli.test.ts).
 */
import t from 'tap'
import { runCommand } from '../../src/cli/dispatch.js'
import { insertLogEntry } from '../../src/mysql/log-entry-rows.js'
import { eventually, postJson, startStack } from '../helpers/stack.js'

const HEADER_AFTER_ID = '  RECEIVED (UTC)            CATEGORY    EVENT TYPE            PLAYER                        CODE  DESCRIPTION'
const USAGE = [
  'usage: presence-link logs search [--category CATEGORY] [--event-type TYPE] [--roblox-user ID] [--username NAME] [--code CODE] [--since TIME] [--until TIME] [--before ID] [--limit N] [--json]',
  'run `presence-link logs search --help` for details',
]

t.test('logs search', async (t) => {
  const stack = await startStack(t, { consumers: ['log'] })
  const search = (...args: string[]) => runCommand(stack.ctx, ['logs', 'search', ...args])
  const store = async (n: number, e: Omit<Parameters<typeof insertLogEntry>[1], 'dedupeKey' | 'source'>) =>
    (await insertLogEntry(stack.db, { dedupeKey: `search:${n}`, source: 'api:game-eu', sourceIp: '203.0.113.9', ...e })).id
  const boot = await store(1, { category: 'server', eventType: 'boot', description: 'Server started', receivedAt: new Date('2024-05-01T10:00:00.000Z') })
  const join = await store(2, { category: 'ingame', eventType: 'player_join', description: 'Builderman joined', platformUsername: 'Builderman', platformUserId: '156', receivedAt: new Date('2024-05-01T10:00:01.250Z') })
  const kick = await store(3, {
    category: 'moderation',
    eventType: 'kick',
    description: 'Exploiting:\nfly hack \u001b[31mred\u001b[0m',
    platformUsername: 'Builderman',
    platformUserId: '156',
    issuedBy: 'ModBob',
    code: '0PUK',
    data: { place_id: 1818 },
    receivedAt: new Date('2024-05-01T10:00:02.500Z'),
  })
  const chat = await store(4, { category: 'ingame', eventType: 'chat', description: `${'x'.repeat(3999)}🎮`, platformUsername: 'Roblox', platformUserId: '1', receivedAt: new Date('2024-05-02T00:00:00.000Z') })
  const posted = await postJson(`${stack.api}/log/ingame`, { event_type: 'player_leave', description: 'Builderman left\n(timeout)', platform_username: 'Builderman', platform_user_id: 156 }, `Bearer ${stack.apiKey}`)
  t.equal(posted.status, 200)
  const leave = await eventually(async () => (await stack.db.selectFrom('log_entries').selectAll().where('event_type', '=', 'player_leave').executeTakeFirst()) ?? undefined, 30_000, 'the posted event stored')
  const width = Math.max(2, ...[boot, join, kick, chat, leave.id].map((id) => String(id).length))
  const id = (n: string) => n.padStart(width)

  const lines = {
    leave: `${id(leave.id)}  ${leave.received_at.toISOString()}  ingame      player_leave          Builderman (156)              -     Builderman left\\n(timeout)`,
    chat: `${id(chat)}  2024-05-02T00:00:00.000Z  ingame      chat                  Roblox (1)                    -     ${'x'.repeat(119)}…`,
    kick: `${id(kick)}  2024-05-01T10:00:02.500Z  moderation  kick                  Builderman (156)              0PUK  Exploiting:\\nfly hack \\u001b[31mred\\u001b[0m`,
    join: `${id(join)}  2024-05-01T10:00:01.250Z  ingame      player_join           Builderman (156)              -     Builderman joined`,
    boot: `${id(boot)}  2024-05-01T10:00:00.000Z  server      boot                  -                             -     Server started`,
  }
  const table = (...shown: Array<keyof typeof lines>) => [`${'ID'.padStart(width)}${HEADER_AFTER_ID}`, ...shown.map((k) => lines[k])]

  t.test('every entry, newest first: the table and the result line', async (t) => {
    t.same(await search(), { lines: [...table('leave', 'chat', 'kick', 'join', 'boot'), '5 entries, newest first'], exitCode: 0 })
  })

  t.test('pages: --limit, then --before the id the last line names, to the end', async (t) => {
    t.same(await search('--limit', '2'), { lines: [...table('leave', 'chat'), `2 entries, newest first; older ones: --before ${chat}`], exitCode: 0 })
    t.same(await search('--limit', '2', '--before', chat), { lines: [...table('kick', 'join'), `2 entries, newest first; older ones: --before ${join}`], exitCode: 0 })
    t.same(await search('--limit', '2', '--before', join), { lines: [...table('boot'), '1 entry, newest first'], exitCode: 0 })
  })

  t.test('each filter, and filters together', async (t) => {
    const cases: Array<[string[], Array<keyof typeof lines>]> = [
      [['--category', 'moderation'], ['kick']],
      [['--category', 'ingame'], ['leave', 'chat', 'join']],
      [['--event-type', 'KICK'], ['kick']],
      [['--event-type', ' player_join '], ['join']],
      [['--roblox-user', '156'], ['leave', 'kick', 'join']],
      [['--username', 'builderman'], ['leave', 'kick', 'join']],
      [['--code', '0puk'], ['kick']],
      [['--since', '2024-05-01T10:00:01Z', '--until', '2024-05-01T10:00:02.500Z'], ['join']],
      [['--since', '2024-05-01T12:00:01.250+02:00'], ['leave', 'chat', 'kick', 'join']],
      [['--until', '2024-05-02'], ['kick', 'join', 'boot']],
      [['--since', '1h'], ['leave']],
      [['--until', '1h'], ['chat', 'kick', 'join', 'boot']],
      [['--category', 'ingame', '--username', 'Builderman', '--until', '1h'], ['join']],
      [['--roblox-user', '156', '--event-type', 'kick', '--code', '0PUK', '--category', 'moderation', '--username', 'BUILDERMAN', '--since', '2024-01-01', '--until', '0s'], ['kick']],
    ]
    for (const [args, shown] of cases) {
      const out = await search(...args)
      t.same(out, { lines: [...table(...shown), `${shown.length} ${shown.length === 1 ? 'entry' : 'entries'}, newest first`], exitCode: 0 }, args.join(' '))
    }
    t.same(await search('--code', 'ZZ99'), { lines: ['no log entries match'], exitCode: 0 })
    t.same(await search('--category', 'server', '--roblox-user', '156'), { lines: ['no log entries match'], exitCode: 0 })
  })

  t.test('--json: one line, an array of every stored field', async (t) => {
    const out = await search('--json', '--roblox-user', '156', '--limit', '2')
    t.equal(out.exitCode, 0)
    t.equal(out.lines.length, 1)
    t.same(JSON.parse(out.lines[0]!), [
      {
        id: Number(leave.id),
        received_at: leave.received_at.toISOString(),
        stored_at: leave.created_at.toISOString(),
        category: 'ingame',
        event_type: 'player_leave',
        description: 'Builderman left\n(timeout)',
        platform_username: 'Builderman',
        platform_user_id: 156,
        issued_by: null,
        code: null,
        source: 'api:test-server',
        source_ip: '127.0.0.1',
        data: null,
        delivery: 'none',
      },
      {
        id: Number(kick),
        received_at: '2024-05-01T10:00:02.500Z',
        stored_at: (await stack.db.selectFrom('log_entries').select('created_at').where('id', '=', kick).executeTakeFirstOrThrow()).created_at.toISOString(),
        category: 'moderation',
        event_type: 'kick',
        description: 'Exploiting:\nfly hack \u001b[31mred\u001b[0m',
        platform_username: 'Builderman',
        platform_user_id: 156,
        issued_by: 'ModBob',
        code: '0PUK',
        source: 'api:game-eu',
        source_ip: '203.0.113.9',
        data: { place_id: 1818 },
        delivery: 'pending',
      },
    ])
    t.same(await search('--json', '--code', 'ZZ99'), { lines: ['[]'], exitCode: 0 })
  })

  t.test('refused arguments: the reason, then the usage', async (t) => {
    const refused: Array<[string[], number, string]> = [
      [['--category', 'audit'], 64, 'error: --category needs server, ingame or moderation'],
      [['--event-type', ''], 64, 'error: --event-type needs an event type: 1-64 characters, no control characters'],
      [['--roblox-user', 'Builderman'], 64, 'error: --roblox-user needs a Roblox user id (a positive whole number)'],
      [['--username', 'Builder man'], 64, 'error: --username needs a Roblox username: 3-20 letters, digits or _'],
      [['--code', 'bad!'], 64, 'error: --code needs a CODE of 4 characters A-Z or 0-9 (in any case)'],
      [['--since', 'yesterday'], 64, 'error: --since needs an ISO time like 2024-05-01 or 2024-05-01T12:00:00Z, or an age like 30s, 15m, 2h, 7d or 2w, not "yesterday"'],
      [['--until', '2024-05-01T10:00'], 64, 'error: --until "2024-05-01T10:00" has no zone: add Z (UTC) or an offset like +02:00'],
      [['--since', '2024-05-02', '--until', '2024-05-01'], 64, 'error: --since (2024-05-02T00:00:00.000Z) must be before --until (2024-05-01T00:00:00.000Z)'],
      [['--limit', '0'], 2, 'error: --limit needs a whole number from 1 to 1000, not "0"'],
      [['--limit', '1001'], 2, 'error: --limit needs a whole number from 1 to 1000, not "1001"'],
      [['--before', 'abc'], 2, 'error: --before needs a whole number of at least 1, not "abc"'],
      [['--bogus'], 2, 'error: unknown flag --bogus'],
      [['--json=yes'], 2, 'error: --json takes no value'],
      [['kick'], 2, 'error: unexpected argument kick'],
    ]
    for (const [args, exitCode, error] of refused) t.same(await search(...args), { lines: [error, ...USAGE], exitCode }, args.join(' '))
    t.same(await search('--before', '999999999'), { lines: ['error: no log entry 999999999: it was pruned or never stored (page by time with --until instead)'], exitCode: 1 })
  })
})
