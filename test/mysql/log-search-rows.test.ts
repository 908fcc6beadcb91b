/**
 * The search of `log_entries` on real MariaDB, over a table of 60,000 entries whose ids do not follow their times
 * (and whose times tie in threes): EXPLAIN of every combination of filters the CLI offers names the planned index,
 * reads it in order (no filesort) and estimates a small share of the table wherever a selective filter leads; the
 * unselective searches stop after one page (ANALYZE); pages follow each other without a gap or a repeat; the server
 * stops a search past its time limit.
 */
import { sql } from 'kysely'
import t from 'tap'
import { cursorOf, searchLogEntries, searchStatement, SearchTimeoutError } from '../../src/mysql/log-search-rows.js'
import { planSearch, type LogSearchFilter, type SearchCursor } from '../../src/mysql/model/log-search.js'
import type { Database } from '../../src/mysql/schema.js'
import type { Kysely } from 'kysely'
import { startStack } from '../helpers/stack.js'

const N = 60_000
const BASE = Date.parse('2026-10-01T00:00:00.000Z')

/** Row i (1..N): category, event type, player and code spread so that each filter selects a known share. */
function rowOf(i: number) {
  const userId = i % 10 < 8 ? 1000 + ((i * 7) % 5000) : null
  return {
    dedupe: `big:${i}`,
    category: i % 20 === 0 ? 'moderation' : i % 20 < 10 ? 'ingame' : 'server',
    eventType: i % 6000 === 1 ? 'Rare_Kick' : i % 2 === 0 ? 'heartbeat' : `type_${i % 40}`,
    username: i % 10 < 7 && userId !== null ? `user_${userId}` : null,
    userId,
    code: i % 5 === 0 ? `${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(65 + (Math.floor(i / 26) % 26))}${String(i % 100).padStart(2, '0')}` : null,
    // A permutation of the ids (7919 is prime to N), three entries per instant, 130 s apart over 30 days: ids and
    // times disagree, and times tie.
    receivedAt: new Date(BASE + Math.floor(((i * 7919) % N) / 3) * 130_000),
  }
}

async function fill(db: Kysely<Database>): Promise<void> {
  for (let from = 1; from <= N; from += 2000) {
    const rows = Array.from({ length: 2000 }, (_, k) => rowOf(from + k)).map(
      (r) => sql`(${r.dedupe}, ${r.category}, ${r.eventType}, ${`entry ${r.dedupe}`}, ${r.username}, ${r.userId}, ${r.code}, 'test', ${r.receivedAt}, 'none')`,
    )
    await sql`INSERT INTO log_entries (dedupe_key, category, event_type, description, platform_username, platform_user_id, code, source, received_at, delivery_state) VALUES ${sql.join(rows)}`.execute(db)
  }
  await sql`ANALYZE TABLE log_entries`.execute(db)
}

interface ExplainRow {
  key: string | null
  type: string
  rows: number | string
  Extra: string | null
}

t.test('log search at volume', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const db = stack.db
  await fill(db)
  // Row 12340: moderation, heartbeat, a player with a name, a code: every filter can match it.
  const sample = rowOf(12340)
  const values = { category: sample.category, eventType: sample.eventType, platformUserId: String(sample.userId), platformUsername: sample.username!, code: sample.code! } as const
  const cursor: SearchCursor = (await cursorOf(db, (await db.selectFrom('log_entries').select('id').where('dedupe_key', '=', 'big:30000').executeTakeFirstOrThrow()).id))!
  const since = new Date(BASE + 86_400_000)
  const until = new Date(BASE + 5 * 86_400_000)

  t.test('EXPLAIN of every combination of filters: the planned index, read in order, never a full scan', async (t) => {
    const fields = Object.keys(values) as Array<keyof typeof values>
    const times: Array<[string, Partial<LogSearchFilter>]> = [
      ['no time', {}],
      ['--since', { since }],
      ['--until', { until }],
      ['--since --until', { since, until }],
    ]
    let explained = 0
    for (let mask = 0; mask < 1 << fields.length; mask++) {
      const given = fields.filter((_, k) => (mask & (1 << k)) !== 0)
      for (const [timeName, time] of times) {
        for (const before of [false, true]) {
          const filter: LogSearchFilter = { limit: 50, ...time, ...(before ? { before: cursor } : {}) }
          for (const f of given) Object.assign(filter, { [f]: values[f] })
          const plan = planSearch(filter)
          const { rows } = await sql<ExplainRow>`EXPLAIN ${searchStatement(plan)}`.execute(db)
          const what = `${given.join(' ') || 'no filter'}, ${timeName}${before ? ', --before' : ''}: ${JSON.stringify(rows[0])}`
          t.equal(rows.length, 1, what)
          const row = rows[0]!
          t.equal(row.key, plan.index, what)
          t.not(row.type, 'ALL', what)
          t.notMatch(row.Extra ?? '', /filesort|temporary/, what)
          // A selective filter leads: the estimate is that filter's entries, not the table's (a full scan says N).
          if (given.some((f) => f === 'code' || f === 'platformUserId' || f === 'platformUsername')) t.ok(Number(row.rows) <= N / 100, `${what}: estimate ${row.rows}`)
          explained++
        }
      }
    }
    t.equal(explained, 256, 'every combination of the five filters, the four time forms and the cursor')
  })

  t.test('a search led by an unselective filter reads one page and stops (ANALYZE)', async (t) => {
    const cases: Array<[string, LogSearchFilter]> = [
      ['no filter', { limit: 50 }],
      ['a category', { limit: 50, category: 'ingame' }],
      ['a common event type', { limit: 50, eventType: 'heartbeat' }],
      ['a time range', { limit: 50, since, until }],
      ['a category after a cursor', { limit: 50, category: 'server', before: cursor }],
    ]
    for (const [what, filter] of cases) {
      // One row past the limit says an older page exists; after a cursor, the cursor and its ties (three entries
      // share an instant here) are read and left out.
      const most = filter.before === undefined ? 51 : 51 + 3
      const { rows } = await sql<{ ANALYZE: string }>`ANALYZE FORMAT=JSON ${searchStatement(planSearch(filter))}`.execute(db)
      const analyzed = JSON.parse(rows[0]!.ANALYZE) as { query_block: { nested_loop: Array<{ table: { key: string; r_rows: number } }> } }
      const table = analyzed.query_block.nested_loop[0]!.table
      t.ok(table.r_rows <= most, `${what}: read ${table.r_rows} rows of ${N} on ${table.key}`)
    }
  })

  t.test('pages follow one another without a gap or a repeat, ties on received_at included', async (t) => {
    const cases: Array<[string, Omit<LogSearchFilter, 'limit'>, number]> = [
      ['an event type', { eventType: 'type_7' }, 97],
      ['a category in a time range', { category: 'moderation', since, until }, 50],
      ['a player', { platformUserId: values.platformUserId }, 3],
      ['a username in any case', { platformUsername: values.platformUsername.toUpperCase() }, 1],
      ['an event type in any case', { eventType: 'rare_kick' }, 3],
    ]
    for (const [what, filter, limit] of cases) {
      const expected = await oracle(db, filter)
      t.ok(expected.length > limit, `${what}: ${expected.length} entries, more than one page`)
      const seen: string[] = []
      let before: SearchCursor | undefined
      for (let pages = 0; pages < 1000; pages++) {
        const page = await searchLogEntries(db, { ...filter, limit, ...(before === undefined ? {} : { before }) })
        seen.push(...page.entries.map((e) => e.id))
        if (page.next === null) break
        before = page.next
      }
      t.same(seen, expected, `${what}: ${seen.length} entries in pages of ${limit}`)
    }
  })

  t.test('every field of an entry comes back as stored', async (t) => {
    const page = await searchLogEntries(db, { limit: 1000, code: values.code })
    const found = page.entries.find((e) => e.description === 'entry big:12340')
    const stored = rowOf(12340)
    t.match(found, {
      category: stored.category,
      eventType: stored.eventType,
      description: 'entry big:12340',
      platformUsername: stored.username,
      platformUserId: String(stored.userId),
      code: stored.code,
      issuedBy: null,
      source: 'test',
      sourceIp: null,
      data: null,
      delivery: 'none',
      receivedAt: stored.receivedAt,
    })
    t.type(found?.storedAt, Date)
    t.equal(await cursorOf(db, '999999999'), null, 'no cursor for an id that is not stored')
  })

  t.test('the server stops a search past its time limit', async (t) => {
    // Another session holds the table: the search waits, and the server ends it at its limit (half a second here).
    await db.connection().execute(async (holder) => {
      await sql`LOCK TABLES log_entries WRITE`.execute(holder)
      try {
        await t.rejects(searchLogEntries(db, { limit: 50, category: 'server' }, 0.5), new SearchTimeoutError('the search ran longer than 0.5 s and the server stopped it'))
      } finally {
        await sql`UNLOCK TABLES`.execute(holder)
      }
    })
    t.equal((await searchLogEntries(db, { limit: 50, category: 'server' }, 0.5)).entries.length, 50, 'once the table is free it answers')
  })
})

/** The ids a filter matches, newest first, in one query without a limit: what the pages must add up to. */
async function oracle(db: Kysely<Database>, filter: Omit<LogSearchFilter, 'limit'>): Promise<string[]> {
  let q = db.selectFrom('log_entries').select('id').orderBy('received_at', 'desc').orderBy('id', 'desc')
  if (filter.category !== undefined) q = q.where('category', '=', filter.category)
  if (filter.eventType !== undefined) q = q.where('event_type', '=', filter.eventType)
  if (filter.platformUserId !== undefined) q = q.where('platform_user_id', '=', filter.platformUserId)
  if (filter.platformUsername !== undefined) q = q.where('platform_username', '=', filter.platformUsername)
  if (filter.code !== undefined) q = q.where('code', '=', filter.code)
  if (filter.since !== undefined) q = q.where('received_at', '>=', filter.since)
  if (filter.until !== undefined) q = q.where('received_at', '<', filter.until)
  return (await q.execute()).map((r) => String(r.id))
}
