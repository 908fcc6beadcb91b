/** The search plan: which index each combination of filters takes, its conditions, and a page cut from its rows. */
import t from 'tap'
import { pageOf, planSearch, SEARCH_INDEXES, type FoundLogEntry, type LogSearchFilter } from '../../../src/mysql/model/log-search.js'

const SINCE = new Date('2026-11-01T00:00:00.000Z')
const UNTIL = new Date('2026-11-02T00:00:00.000Z')
const CURSOR = { receivedAt: new Date('2026-11-01T12:00:00.000Z'), id: '42' }

t.test('the index: the most selective filter given leads', async (t) => {
  const cases: Array<[string, Partial<LogSearchFilter>, string]> = [
    ['nothing: received_at alone', {}, 'log_entries_time'],
    ['time only', { since: SINCE, until: UNTIL }, 'log_entries_time'],
    ['a cursor only', { before: CURSOR }, 'log_entries_time'],
    ['category', { category: 'ingame' }, 'log_entries_category_time'],
    ['event type over category', { category: 'ingame', eventType: 'player_join' }, 'log_entries_event_time'],
    ['username over event type', { eventType: 'kick', platformUsername: 'Builderman' }, 'log_entries_username_time'],
    ['player id over username', { platformUsername: 'Builderman', platformUserId: '156' }, 'log_entries_player_time'],
    ['code over everything', { category: 'moderation', eventType: 'kick', platformUserId: '156', platformUsername: 'Builderman', code: '0PUK', since: SINCE }, 'log_entries_code_time'],
    ['code over player id', { platformUserId: '156', code: 'AB12' }, 'log_entries_code_time'],
  ]
  for (const [what, filter, index] of cases) t.equal(planSearch({ limit: 50, ...filter }).index, index, what)
  t.same(Object.keys(SEARCH_INDEXES).sort(), ['category', 'code', 'event_type', 'platform_user_id', 'platform_username', 'time'])
})

t.test('conditions: every filter given, the leading one first; times and cursor apart; one row more than the limit', async (t) => {
  t.same(planSearch({ limit: 50 }), { index: 'log_entries_time', equal: [], since: null, until: null, before: null, fetch: 51 })
  t.same(
    planSearch({ limit: 1000, category: 'server', eventType: 'boot', platformUsername: 'Builderman', since: SINCE, until: UNTIL, before: CURSOR }),
    {
      index: 'log_entries_username_time',
      equal: [
        ['platform_username', 'Builderman'],
        ['event_type', 'boot'],
        ['category', 'server'],
      ],
      since: SINCE,
      until: UNTIL,
      before: CURSOR,
      fetch: 1001,
    },
  )
  t.same(planSearch({ limit: 1, code: '0PUK', platformUserId: '156' }).equal, [
    ['code', '0PUK'],
    ['platform_user_id', '156'],
  ])
})

function entry(id: number, at: string): FoundLogEntry {
  return {
    id: String(id),
    receivedAt: new Date(at),
    storedAt: new Date(at),
    category: 'server',
    eventType: 'boot',
    description: 'd',
    platformUsername: null,
    platformUserId: null,
    issuedBy: null,
    code: null,
    source: 'test',
    sourceIp: null,
    data: null,
    delivery: 'none',
  }
}

t.test('a page: at most the limit, and a cursor at its oldest entry when a further row was read', async (t) => {
  const plan = planSearch({ limit: 2 })
  const rows = [entry(9, '2026-11-01T00:00:03.000Z'), entry(7, '2026-11-01T00:00:02.000Z'), entry(8, '2026-11-01T00:00:01.000Z')]
  t.same(pageOf(plan, rows), { entries: rows.slice(0, 2), next: { receivedAt: new Date('2026-11-01T00:00:02.000Z'), id: '7' } })
  t.same(pageOf(plan, rows.slice(0, 2)), { entries: rows.slice(0, 2), next: null }, 'exactly the limit: no older page')
  t.same(pageOf(plan, rows.slice(0, 1)), { entries: rows.slice(0, 1), next: null })
  t.same(pageOf(plan, []), { entries: [], next: null })
})
