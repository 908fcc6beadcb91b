/** `logs search` arguments: times as ISO or ages, each filter checked with its reason, since before until. */
import t from 'tap'
import { parseSearchTime, readSearchArguments, type LogSearchArguments } from '../../../src/cli/model/log-search-args.js'

const NOW = new Date('2026-11-28T12:00:00.000Z')

t.test('times', async (t) => {
  const good: Array<[string, string]> = [
    ['30s', '2026-11-28T11:59:30.000Z'],
    ['15m', '2026-11-28T11:45:00.000Z'],
    ['2h', '2026-11-28T10:00:00.000Z'],
    ['7d', '2026-11-21T12:00:00.000Z'],
    ['2w', '2026-11-14T12:00:00.000Z'],
    ['0m', '2026-11-28T12:00:00.000Z'],
    ['2024-05-01', '2024-05-01T00:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2024-05-01T12:00Z', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T12:00:00Z', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T12:00:00.5Z', '2024-05-01T12:00:00.500Z'],
    ['2024-05-01T12:00:00.123Z', '2024-05-01T12:00:00.123Z'],
    ['2024-05-01T12:00:00+02:00', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T00:30:00-05:30', '2024-05-01T06:00:00.000Z'],
    ['1970-01-01', '1970-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
  ]
  for (const [text, iso] of good) t.same(parseSearchTime(text, NOW), { ok: true, at: new Date(iso) }, text)

  const noZone = 'has no zone: add Z (UTC) or an offset like +02:00'
  const bad: Array<[string, string | null]> = [
    ['', null],
    ['yesterday', null],
    ['15', null],
    ['15 m', null],
    ['15M', null],
    ['1.5h', null],
    ['-2h', null],
    ['2y', null],
    ['12345678d', null],
    ['2024-02-30', null],
    ['2023-02-29', null],
    ['2024-13-01', null],
    ['2024-00-10', null],
    ['2024-5-1', null],
    ['2024-05-01T24:00:00Z', null],
    ['2024-05-01T12:60:00Z', null],
    ['2024-05-01T12:00:61Z', null],
    ['2024-05-01T12:00:00+15:00', null],
    ['2024-05-01T12:00:00.1234Z', null],
    ['2024-05-01t12:00:00z', null],
    ['1714564800', null],
    ['2024-05-01\n', null],
    ['２０２４-05-01', null],
    ['2024-05-01T12:00', noZone],
    ['2024-05-01 12:00:00', noZone],
    ['2024-05-01T12:00:00.000', noZone],
    ['1969-12-31T23:59:59Z', 'is out of range (1970 to 9999)'],
    ['9999999d', 'is out of range (1970 to 9999)'],
  ]
  for (const [text, problem] of bad) t.same(parseSearchTime(text, NOW), { ok: false, problem }, JSON.stringify(text))
  t.same(parseSearchTime(`${'1'.repeat(4000)}d`, NOW), { ok: false, problem: null }, 'a 4,000-digit age')
})

const args = (over: Partial<LogSearchArguments> = {}): LogSearchArguments => ({ limit: 50, ...over })

t.test('every filter, read', async (t) => {
  t.same(readSearchArguments(args(), NOW), { ok: true, filter: { limit: 50 }, beforeId: null })
  t.same(
    readSearchArguments(
      args({ category: 'moderation', eventType: '  kick ', robloxUser: '156', username: 'builderman', code: '0puk', since: '7d', until: '2026-11-28T11:00:00Z', before: 99, limit: 1000 }),
      NOW,
    ),
    {
      ok: true,
      filter: {
        limit: 1000,
        category: 'moderation',
        eventType: 'kick',
        platformUserId: '156',
        platformUsername: 'builderman',
        code: '0PUK',
        since: new Date('2026-11-21T12:00:00.000Z'),
        until: new Date('2026-11-28T11:00:00.000Z'),
      },
      beforeId: '99',
    },
  )
  t.same(readSearchArguments(args({ eventType: '🎮 player join' }), NOW), { ok: true, filter: { limit: 50, eventType: '🎮 player join' }, beforeId: null }, 'any printable event type')
  t.same(readSearchArguments(args({ eventType: 'x'.repeat(64) }), NOW), { ok: true, filter: { limit: 50, eventType: 'x'.repeat(64) }, beforeId: null })
})

t.test('each refusal names the flag and what it takes', async (t) => {
  const time = 'an ISO time like 2024-05-01 or 2024-05-01T12:00:00Z, or an age like 30s, 15m, 2h, 7d or 2w'
  const cases: Array<[Partial<LogSearchArguments>, string]> = [
    [{ category: 'Server' }, '--category needs server, ingame or moderation'],
    [{ category: 'audit' }, '--category needs server, ingame or moderation'],
    [{ eventType: '' }, '--event-type needs an event type: 1-64 characters, no control characters'],
    [{ eventType: '   ' }, '--event-type needs an event type: 1-64 characters, no control characters'],
    [{ eventType: 'x'.repeat(65) }, '--event-type needs an event type: 1-64 characters, no control characters'],
    [{ eventType: 'kick\nban' }, '--event-type needs an event type: 1-64 characters, no control characters'],
    [{ eventType: 'kick\u001b[31m' }, '--event-type needs an event type: 1-64 characters, no control characters'],
    [{ robloxUser: 'Builderman' }, '--roblox-user needs a Roblox user id (a positive whole number)'],
    [{ robloxUser: '0' }, '--roblox-user needs a Roblox user id (a positive whole number)'],
    [{ robloxUser: '-5' }, '--roblox-user needs a Roblox user id (a positive whole number)'],
    [{ robloxUser: '1'.repeat(17) }, '--roblox-user needs a Roblox user id (a positive whole number)'],
    [{ username: 'ab' }, '--username needs a Roblox username: 3-20 letters, digits or _'],
    [{ username: 'Builder man' }, '--username needs a Roblox username: 3-20 letters, digits or _'],
    [{ username: 'x'.repeat(21) }, '--username needs a Roblox username: 3-20 letters, digits or _'],
    [{ username: "Robert'); DROP TABLE log_entries;--" }, '--username needs a Roblox username: 3-20 letters, digits or _'],
    [{ code: 'ABC' }, '--code needs a CODE of 4 characters A-Z or 0-9 (in any case)'],
    [{ code: 'ab!d' }, '--code needs a CODE of 4 characters A-Z or 0-9 (in any case)'],
    [{ code: 'ıabc' }, '--code needs a CODE of 4 characters A-Z or 0-9 (in any case)'],
    [{ code: '%26AB' }, '--code needs a CODE of 4 characters A-Z or 0-9 (in any case)'],
    [{ since: 'yesterday' }, `--since needs ${time}, not "yesterday"`],
    [{ until: '2024-02-30' }, `--until needs ${time}, not "2024-02-30"`],
    [{ since: '2024-05-01T12:00' }, '--since "2024-05-01T12:00" has no zone: add Z (UTC) or an offset like +02:00'],
    [{ until: '1900-01-01' }, '--until "1900-01-01" is out of range (1970 to 9999)'],
    [{ since: '1h', until: '2h' }, '--since (2026-11-28T11:00:00.000Z) must be before --until (2026-11-28T10:00:00.000Z)'],
    [{ since: '2026-11-28T12:00:00Z', until: '0s' }, '--since (2026-11-28T12:00:00.000Z) must be before --until (2026-11-28T12:00:00.000Z)'],
    [{ category: 'nope', code: 'bad!' }, '--category needs server, ingame or moderation'],
  ]
  for (const [over, message] of cases) t.same(readSearchArguments(args(over), NOW), { ok: false, message }, JSON.stringify(over).slice(0, 80))
})
