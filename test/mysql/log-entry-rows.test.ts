/**
 * The log entries' INSERT written by hand (its literals escaped here, not by mysql2): hostile text round-trips through
 * the real MariaDB byte for byte, times keep their milliseconds in UTC, and NULLs stay NULL.
 */
import t from 'tap'
import { insertLogEntries, insertStatement, sqlDatetime, sqlString, type NewLogEntry } from '../../src/mysql/log-entry-rows.js'
import { startStack, type Stack } from '../helpers/stack.js'

let stack: Stack

t.before(async () => {
  stack = await startStack(t, { front: false, consumers: [] })
})

t.test('literals', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['plain text is only quoted', 'Player joined', "'Player joined'"],
    ['quotes', `it's "x"`, `'it\\'s \\"x\\"'`],
    ['a backslash', 'a\\b', "'a\\\\b'"],
    ['control characters mysql2 escapes', '\0\b\t\n\r\x1a', "'\\0\\b\\t\\n\\r\\Z'"],
    ['a question mark is text', 'who? ?? ?', "'who? ?? ?'"],
    ['empty', '', "''"],
  ]
  for (const [name, text, literal] of cases) t.equal(sqlString(text), literal, name)
  t.equal(sqlDatetime(new Date('2026-11-28T09:05:03.007Z')), "'2026-11-28 09:05:03.007'")
  t.match(insertStatement([], new Set()), /^insert into `log_entries` \(`dedupe_key`, .*`delivery_state`\) values $/)
})

t.test('hostile text round-trips through MariaDB exactly', async (t) => {
  const hostile = [
    `'); DROP TABLE log_entries; --`,
    `\\'; SELECT 1; -- \\\\`,
    'NUL \0 SUB \x1a BS \b tab \t CR \r LF \n',
    'emoji \u{1F600} and a ZWJ family \u{1F468}\u200D\u{1F469}\u200D\u{1F467}',
    'right-to-left \u202Eevil\u202C text',
    '? ?? ??? placeholders',
    'x'.repeat(4000),
  ]
  const entries: NewLogEntry[] = hostile.map((description, i) => ({
    dedupeKey: `job:log:hostile-${i}`,
    category: 'server',
    eventType: `hostile_${i}`,
    description,
    platformUsername: i === 0 ? "O'Brien" : null,
    platformUserId: i === 0 ? '9007199254740991' : null,
    issuedBy: i === 1 ? 'back\\slash' : undefined,
    code: i === 2 ? 'AB12' : null,
    source: "api:key'name",
    sourceIp: i === 3 ? '2001:db8::1' : null,
    data: i === 4 ? { quote: "'", nested: ['\\', '\n'] } : undefined,
    receivedAt: new Date(Date.UTC(2026, 10, 28, 12, 0, 0, i)),
  }))
  await insertLogEntries(stack.db, entries, new Set(['server']))
  const rows = await stack.db.selectFrom('log_entries').selectAll().where('event_type', 'like', 'hostile\\_%').orderBy('id').execute()
  t.same(rows.map((r) => r.description), hostile, 'every description byte for byte, in order')
  t.equal(rows[0]!.platform_username, "O'Brien")
  t.equal(String(rows[0]!.platform_user_id), '9007199254740991')
  t.equal(rows[1]!.issued_by, 'back\\slash')
  t.equal(rows[2]!.code, 'AB12')
  t.equal(rows[3]!.source_ip, '2001:db8::1')
  t.same(JSON.parse(rows[4]!.data!), { quote: "'", nested: ['\\', '\n'] })
  t.same(rows.map((r) => r.source), hostile.map(() => "api:key'name"))
  t.same(rows.map((r) => r.received_at.toISOString()), entries.map((e) => e.receivedAt.toISOString()), 'milliseconds kept, in UTC')
  t.same(rows.map((r) => r.delivery_state), hostile.map(() => 'pending'))
  t.equal(rows[5]!.platform_username, null)
  t.equal(rows[5]!.data, null)
  t.same(await stack.db.selectFrom('log_entries').select('id').where('event_type', '=', 'hostile_x').execute(), [], 'nothing injected')
})

t.test('a category without a destination starts none', async (t) => {
  await insertLogEntries(stack.db, [{ dedupeKey: 'job:log:nodest', category: 'ingame', eventType: 'nodest', description: 'd', source: 's', receivedAt: new Date() }], new Set(['server']))
  const row = await stack.db.selectFrom('log_entries').select('delivery_state').where('event_type', '=', 'nodest').executeTakeFirstOrThrow()
  t.equal(row.delivery_state, 'none')
})
