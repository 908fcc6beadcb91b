/** Digest mode, pure (src/delivery/model/digest.ts): when a destination has fallen behind, and what a digest says. */
import t from 'tap'
import {
  caughtUpAt,
  countCap,
  DIGEST_FLOOR,
  entryLine,
  fallenBehind,
  isModerationLine,
  MODERATION_LINES,
  planDigest,
  readCommand,
  RECENT_LINES,
  renderDigest,
  type DigestRow,
} from '../../../src/delivery/model/digest.js'
import { embedSize, EmbedLimit, type EntryView } from '../../../src/delivery/model/embeds.js'
import { parseSearchTime } from '../../../src/cli/model/log-search-args.js'

const settings = { backlog: 1000, afterMs: 30_000, everyMs: 10_000 }

t.test('fallenBehind', async (t) => {
  const cases: Array<[string, typeof settings, number, number, ReturnType<typeof fallenBehind>]> = [
    ['nothing waiting', settings, 0, 0, null],
    ['a few entries waiting a long time are posted one by one', settings, DIGEST_FLOOR, 3_600_000, null],
    ['just over the floor, waiting long enough', settings, DIGEST_FLOOR + 1, 30_000, 'wait'],
    ['just over the floor, not waiting long enough', settings, DIGEST_FLOOR + 1, 29_999, null],
    ['the backlog limit itself is not over it', settings, 1000, 0, null],
    ['one more than the backlog limit', settings, 1001, 0, 'backlog'],
    ['both: the backlog is named', settings, 5000, 60_000, 'backlog'],
    ['backlog trigger off', { ...settings, backlog: 0 }, 100_000, 1000, null],
    ['wait trigger off', { ...settings, afterMs: 0 }, 500, 3_600_000, null],
    ['both off: never', { backlog: 0, afterMs: 0, everyMs: 10_000 }, 1_000_000, 86_400_000, null],
    ['a backlog limit under the floor still needs the floor', { ...settings, backlog: 10 }, 30, 0, null],
  ]
  for (const [name, s, pending, wait, expected] of cases) t.equal(fallenBehind(s, pending, wait), expected, name)
  t.equal(countCap(settings), 1001, 'a count up to one past the limit decides')
  t.equal(countCap({ ...settings, backlog: 0 }), DIGEST_FLOOR + 1, 'with the backlog trigger off, one past the floor')
  t.equal(caughtUpAt(settings), 100, 'ten entries a second of the digest interval')
  t.equal(caughtUpAt({ ...settings, everyMs: 1000 }), 10)
})

t.test('isModerationLine', async (t) => {
  t.ok(isModerationLine('moderation', 'anything', false), 'every moderation-log entry')
  t.ok(isModerationLine('ingame', 'kick', true), 'an entry carrying a code')
  t.ok(isModerationLine('ingame', 'threat_detection', false), 'the safety check')
  t.ok(isModerationLine('server', 'member_ban', false), "the gateway's bans")
  t.notOk(isModerationLine('ingame', 'player_join', false))
  t.notOk(isModerationLine('server', 'Member_Ban', false), 'event types are matched exactly')
})

const row = (id: number, eventType: string, hasCode = false, at = 1_700_000_000_000 + id * 10): DigestRow => ({ id: String(id), eventType, hasCode, receivedAt: new Date(at) })

const view = (id: number, over: Partial<EntryView> = {}): EntryView => ({
  id: String(id),
  category: 'ingame',
  eventType: 'player_join',
  description: `Player ${id} joined`,
  platformUsername: `Player_${id}`,
  platformUserId: String(1000 + id),
  issuedBy: null,
  code: null,
  source: 'api:game-1',
  receivedAt: new Date(1_700_000_000_000 + id * 10),
  ...over,
})

t.test('planDigest', async (t) => {
  const rows = [...Array.from({ length: 40 }, (_, i) => row(i + 1, i % 2 === 0 ? 'player_join' : 'player_leave')), row(41, 'kick', true), row(42, 'chat'), row(43, 'chat'), row(44, 'kick', true)]
  const plan = planDigest('ingame', rows)
  t.same(plan.ids, rows.map((r) => r.id))
  t.same(plan.counts, [
    { eventType: 'player_join', count: 20 },
    { eventType: 'player_leave', count: 20 },
    { eventType: 'chat', count: 2 },
    { eventType: 'kick', count: 2 },
  ], 'most first, ties by name')
  t.same(plan.moderation, { total: 2, ids: ['41', '44'] })
  t.same(plan.recentIds, ['38', '39', '40', '42', '43'], 'the last five that are not moderation lines already shown')
  t.same([plan.firstReceivedAt.getTime(), plan.lastReceivedAt.getTime()], [1_700_000_000_010, 1_700_000_000_440])

  const flood = planDigest('moderation', Array.from({ length: 100 }, (_, i) => row(i + 1, 'ban')))
  t.equal(flood.moderation.total, 100)
  t.same(flood.moderation.ids, Array.from({ length: MODERATION_LINES }, (_, i) => String(100 - MODERATION_LINES + 1 + i)), 'the most recent moderation lines')
  t.same(flood.recentIds, Array.from({ length: RECENT_LINES }, (_, i) => String(100 - MODERATION_LINES - RECENT_LINES + 1 + i)))
  t.throws(() => planDigest('server', []))
})

t.test('readCommand names the category and a time range holding every entry, as logs search reads it', async (t) => {
  const plan = { category: 'ingame' as const, firstReceivedAt: new Date('2026-11-28T12:00:01.250Z'), lastReceivedAt: new Date('2026-11-28T12:00:41.999Z') }
  const [, since, until] = /--since (\S+) --until (\S+)$/.exec(readCommand(plan)) ?? []
  const now = new Date('2026-11-29T00:00:00Z')
  const from = parseSearchTime(since!, now)
  const to = parseSearchTime(until!, now)
  t.ok(from.ok && to.ok, 'both are times --since and --until take')
  // --since is inclusive, --until exclusive (docs/cli.md).
  if (from.ok && to.ok) t.ok(from.at <= plan.firstReceivedAt && to.at > plan.lastReceivedAt, 'the range holds the first and the last entry')

  t.equal(
    readCommand({ category: 'ingame', firstReceivedAt: new Date('2026-11-28T12:00:01.250Z'), lastReceivedAt: new Date('2026-11-28T12:00:41.999Z') }),
    'presence-link logs search --category ingame --since 2026-11-28T12:00:01Z --until 2026-11-28T12:00:42Z',
  )
  t.equal(
    readCommand({ category: 'server', firstReceivedAt: new Date('2026-11-28T12:00:00.000Z'), lastReceivedAt: new Date('2026-11-28T12:00:00.000Z') }),
    'presence-link logs search --category server --since 2026-11-28T12:00:00Z --until 2026-11-28T12:00:01Z',
  )
})

t.test('entryLine escapes what a game or a user wrote', async (t) => {
  const line = entryLine(view(7, { eventType: 'kick', description: '**bold** @everyone <@123> [x](https://evil.example)\nsecond line', issuedBy: 'Mod_*1*', code: 'AB`2', platformUsername: 'Evil_*Name*' }), 160)
  t.equal(line, '`#7` 22:13:20 **kick** Evil\\_\\*Name\\* (1007) by Mod\\_\\*1\\* `AB\'2`: \\*\\*bold\\*\\* \\@everyone \\<\\@123\\> \\[x\\](https://evil.example) second line')
  t.match(entryLine(view(8, { description: 'x'.repeat(4000) }), 100), /: x{99}…$/, 'a long description is cut')
  t.equal(entryLine(view(9, { platformUsername: null, platformUserId: null, description: '' }), 100), '`#9` 22:13:20 **player\\_join**')
})

t.test('renderDigest', async (t) => {
  t.test('counts, range, the read command, moderation and recent lines', async (t) => {
    const rows = [...Array.from({ length: 30 }, (_, i) => row(i + 1, 'player_join')), row(31, 'kick', true), row(32, 'player_leave')]
    const plan = planDigest('ingame', rows)
    const shown = new Map([...plan.moderation.ids, ...plan.recentIds].map((id) => [id, view(Number(id), id === '31' ? { eventType: 'kick', code: 'K1CK', issuedBy: 'AntiCheat', description: 'speed hacking' } : {})]))
    const { embeds, allowed_mentions } = renderDigest(plan, shown)
    t.same(allowed_mentions, { parse: [] })
    t.equal(embeds.length, 3)
    t.match(embeds[0], {
      title: 'In-game log · digest of 32 entries',
      color: 0x57f287,
      fields: [
        { name: 'Entries', value: '#1 – #32' },
        { name: 'Received (UTC)', value: '22:13:20 – 22:13:20' },
        { name: 'By event type', value: 'player\\_join — 30\nkick — 1\nplayer\\_leave — 1' },
      ],
      footer: { text: 'Digest · entries #1–#32' },
    })
    t.match(embeds[0]!.description, /32 entries are summarized here instead of one embed each\. Every entry is stored\.\nRead them all: `presence-link logs search --category ingame --since \S+ --until \S+`$/)
    t.equal(embeds[1]!.title, 'Moderation entries (1)')
    t.equal(embeds[1]!.description, '`#31` 22:13:20 **kick** Player\\_31 (1031) by AntiCheat `K1CK`: speed hacking')
    t.equal(embeds[2]!.title, 'Most recent entries')
    t.equal(embeds[2]!.description!.split('\n').length, RECENT_LINES)
    t.match(embeds[2]!.description!.split('\n').at(-1), /^`#32` /)
  })

  t.test('hostile volume stays within one message: 1,000 event types of 64 characters, 4,000-character texts, emoji', async (t) => {
    const type = (i: number) => `${'_*'.repeat(28)}${String(i).padStart(8, '0')}`
    const rows = Array.from({ length: 5000 }, (_, i) => row(i + 1, type(i % 1000), i % 3 === 0))
    const plan = planDigest('ingame', rows)
    const shown = new Map([...plan.moderation.ids, ...plan.recentIds].map((id) => [id, view(Number(id), { eventType: type(Number(id)), description: '😀@everyone*'.repeat(400), issuedBy: 'x'.repeat(100), platformUsername: '_'.repeat(20) })]))
    const { embeds } = renderDigest(plan, shown)
    const total = embeds.reduce((n, e) => n + embedSize(e), 0)
    t.ok(total <= EmbedLimit.total, `${total} characters`)
    t.ok(embeds.length <= 10)
    for (const e of embeds) {
      t.ok((e.description ?? '').length <= EmbedLimit.description)
      for (const f of e.fields) t.ok(f.value.length <= EmbedLimit.fieldValue && f.name.length <= EmbedLimit.fieldName)
    }
    const countLines = embeds[0]!.fields.filter((f) => f.name.startsWith('By event type')).flatMap((f) => f.value.split('\n'))
    t.match(countLines.at(-1), /^… and [\d,]+ more event types \([\d,]+ entries\)$/, 'the types that do not fit are counted')
    t.match(embeds[1]!.title, 'Moderation entries (1,667)')
    t.match(embeds[1]!.description, /^… [\d,]+ earlier moderation entries: see the command above\n/)
  })

  t.test('a moderation-log digest shows its most recent lines', async (t) => {
    const plan = planDigest('moderation', Array.from({ length: 80 }, (_, i) => row(i + 1, 'ban', true)))
    const shown = new Map([...plan.moderation.ids, ...plan.recentIds].map((id) => [id, view(Number(id), { category: 'moderation', eventType: 'ban' })]))
    const { embeds } = renderDigest(plan, shown)
    t.equal(embeds[0]!.title, 'Moderation log · digest of 80 entries')
    t.match(embeds[1]!.description!.split('\n').at(-1), /^`#80` /)
    t.match(embeds[1]!.description!.split('\n')[0], `… ${80 - MODERATION_LINES} earlier moderation entries`)
  })
})
