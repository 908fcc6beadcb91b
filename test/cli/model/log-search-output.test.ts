/** What `logs search` prints: escaped text, widths, the table (terminal and piped), and the JSON line. */
import t from 'tap'
import { displayWidth, entryJson, escapeText, fitWidth, formatJson, formatTable, PIPED_DESCRIPTION_WIDTH } from '../../../src/cli/model/log-search-output.js'
import type { FoundLogEntry, SearchPage } from '../../../src/mysql/model/log-search.js'

t.test('text is escaped onto one line', async (t) => {
  const cases: Array<[string, string]> = [
    ['plain text', 'plain text'],
    ['two\nlines', 'two\\nlines'],
    ['crlf\r\nend', 'crlf\\r\\nend'],
    ['a\tb', 'a\\tb'],
    ['\u001b[31mred\u001b[0m', '\\u001b[31mred\\u001b[0m'],
    ['bell\u0007', 'bell\\u0007'],
    ['del\u007f', 'del\\u007f'],
    ['csi\u009b2J', 'csi\\u009b2J'],
    ['line\u2028sep\u2029', 'line\\u2028sep\\u2029'],
    ['evil\u202Etxt.exe', 'evil\\u202etxt.exe'],
    ['\u2066isolate\u2069', '\\u2066isolate\\u2069'],
    ['C:\\path\\n', 'C:\\path\\n'],
    ['🎮 émoji ünïcode 漢字', '🎮 émoji ünïcode 漢字'],
    ['', ''],
  ]
  // Named by the escaped form: a raw U+2028 in a test name would break tap's own line-based output.
  for (const [text, shown] of cases) t.equal(escapeText(text), shown, shown)
  t.equal(escapeText('x\n'.repeat(2000)), 'x\\n'.repeat(2000), '4,000 characters')
})

t.test('widths: wide characters take two columns, marks none; a cut ends in … at a character boundary', async (t) => {
  const widths: Array<[string, number]> = [
    ['abc', 3],
    ['🎮', 2],
    ['漢字', 4],
    ['ｆｕｌｌ', 8],
    ['e\u0301', 1],
    ['👩‍👩‍👧', 2],
    ['❤️', 2],
    ['', 0],
  ]
  for (const [text, width] of widths) t.equal(displayWidth(text), width, text)
  const cuts: Array<[string, number, string]> = [
    ['abcdef', 6, 'abcdef'],
    ['abcdefg', 6, 'abcde…'],
    ['漢字漢字', 6, '漢字…'],
    ['ab🎮cd', 4, 'ab…'],
    ['ab🎮cd', 5, 'ab🎮…'],
    ['👩‍👩‍👧👩‍👩‍👧', 3, '👩‍👩‍👧…'],
    ['e\u0301e\u0301e\u0301', 2, 'e\u0301…'],
  ]
  for (const [text, width, cut] of cuts) {
    t.equal(fitWidth(text, width), cut, `${text} in ${width}`)
    t.ok(displayWidth(fitWidth(text, width)) <= width, `${text} fits ${width}`)
  }
})

function entry(over: Partial<FoundLogEntry>): FoundLogEntry {
  return {
    id: '1',
    receivedAt: new Date('2026-11-28T12:00:00.000Z'),
    storedAt: new Date('2026-11-28T12:00:00.120Z'),
    category: 'server',
    eventType: 'boot',
    description: 'Server started',
    platformUsername: null,
    platformUserId: null,
    issuedBy: null,
    code: null,
    source: 'api:game-eu',
    sourceIp: '203.0.113.9',
    data: null,
    delivery: 'none',
    ...over,
  }
}

const KICK = entry({
  id: '1042',
  receivedAt: new Date('2026-11-28T12:00:02.500Z'),
  storedAt: new Date('2026-11-28T12:00:02.530Z'),
  category: 'moderation',
  eventType: 'kick',
  description: 'Exploiting:\nfly hack \u001b[31mred\u001b[0m',
  platformUsername: 'Builderman',
  platformUserId: '156',
  issuedBy: 'ModBob',
  code: '0PUK',
  data: '{"place_id":1818,"reason":"fly"}',
  delivery: 'sent',
})
const JOIN = entry({ id: '1041', receivedAt: new Date('2026-11-28T12:00:01.250Z'), category: 'ingame', eventType: 'player_join', description: 'Builderman joined', platformUsername: 'Builderman', platformUserId: '156' })
const BOOT = entry({ id: '7', description: 'x'.repeat(4000) })
const ODD = entry({
  id: '1040',
  eventType: '🎮 a very long event type that goes on',
  description: '漢字 and 🎮',
  platformUserId: '9007199254740991',
  data: 'not json',
})

const HEADER = '  ID  RECEIVED (UTC)            CATEGORY    EVENT TYPE            PLAYER                        CODE  DESCRIPTION'

t.test('the table', async (t) => {
  t.test('piped: fixed columns, the description cut at 120 columns, the result last', async (t) => {
    const page: SearchPage = { entries: [KICK, JOIN, BOOT], next: null }
    t.same(formatTable(page, null), [
      HEADER,
      '1042  2026-11-28T12:00:02.500Z  moderation  kick                  Builderman (156)              0PUK  Exploiting:\\nfly hack \\u001b[31mred\\u001b[0m',
      '1041  2026-11-28T12:00:01.250Z  ingame      player_join           Builderman (156)              -     Builderman joined',
      `   7  2026-11-28T12:00:00.000Z  server      boot                  -                             -     ${'x'.repeat(PIPED_DESCRIPTION_WIDTH - 1)}…`,
      '3 entries, newest first',
    ])
  })

  t.test('in a terminal, the description fills the width; wide characters and long types stay in their columns', async (t) => {
    const lines = formatTable({ entries: [ODD, BOOT], next: { receivedAt: BOOT.receivedAt, id: '7' } }, 140)
    t.same(lines, [
      HEADER,
      '1040  2026-11-28T12:00:00.000Z  server      🎮 a very long even…  (9007199254740991)            -     漢字 and 🎮',
      `   7  2026-11-28T12:00:00.000Z  server      boot                  -                             -     ${'x'.repeat(37)}…`,
      '2 entries, newest first; older ones: --before 7',
    ])
    for (const line of lines.slice(0, -1)) t.ok(displayWidth(line) <= 140, `fits 140 columns: ${displayWidth(line)}`)
    t.equal(displayWidth(lines[2]!), 140)
  })

  t.test('a terminal narrower than the columns still shows 20 columns of description', async (t) => {
    t.equal(formatTable({ entries: [BOOT], next: null }, 40)[1], ` 7  2026-11-28T12:00:00.000Z  server      boot                  -                             -     ${'x'.repeat(19)}…`)
  })

  t.test('one entry; none', async (t) => {
    t.equal(formatTable({ entries: [JOIN], next: null }, null).at(-1), '1 entry, newest first')
    t.same(formatTable({ entries: [], next: null }, null), ['no log entries match'])
  })

  t.test('the player column', async (t) => {
    const player = (e: FoundLogEntry) => formatTable({ entries: [e], next: null }, null)[1]!.slice(64, 94).trimEnd()
    t.equal(player(entry({ platformUsername: 'Builderman', platformUserId: '156' })), 'Builderman (156)')
    t.equal(player(entry({ platformUsername: 'Builderman' })), 'Builderman')
    t.equal(player(entry({ platformUserId: '156' })), '(156)')
    t.equal(player(entry({})), '-')
  })
})

t.test('JSON: one line, an array of every stored field, named as the API names them', async (t) => {
  t.equal(formatJson({ entries: [], next: null }), '[]')
  const line = formatJson({ entries: [KICK, ODD], next: null })
  t.notMatch(line, /\n/)
  t.same(JSON.parse(line), [
    {
      id: 1042,
      received_at: '2026-11-28T12:00:02.500Z',
      stored_at: '2026-11-28T12:00:02.530Z',
      category: 'moderation',
      event_type: 'kick',
      description: 'Exploiting:\nfly hack \u001b[31mred\u001b[0m',
      platform_username: 'Builderman',
      platform_user_id: 156,
      issued_by: 'ModBob',
      code: '0PUK',
      source: 'api:game-eu',
      source_ip: '203.0.113.9',
      data: { place_id: 1818, reason: 'fly' },
      delivery: 'sent',
    },
    {
      id: 1040,
      received_at: '2026-11-28T12:00:00.000Z',
      stored_at: '2026-11-28T12:00:00.120Z',
      category: 'server',
      event_type: '🎮 a very long event type that goes on',
      description: '漢字 and 🎮',
      platform_username: null,
      platform_user_id: 9007199254740991,
      issued_by: null,
      code: null,
      source: 'api:game-eu',
      source_ip: '203.0.113.9',
      data: 'not json',
      delivery: 'none',
    },
  ])
  t.equal(entryJson(entry({ id: '9007199254740993' })).id, '9007199254740993', 'an id past 2^53 stays exact, as a string')
  const hostile = formatJson({ entries: [entry({ description: 'a\u009b2J\u202Eb\u2028c\u007f' })], next: null })
  t.match(hostile, /"description":"a\\u009b2J\\u202eb\\u2028c\\u007f"/, 'C1 controls, bidi and separators are escaped in the JSON too')
  t.equal((JSON.parse(hostile) as Array<{ description: string }>)[0]!.description, 'a\u009b2J\u202Eb\u2028c\u007f', 'and parse back to the stored text')
})
