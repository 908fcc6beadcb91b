/** Log batches, pure: the payload schema, the byte bounds of an entry and of a group, and the bisection of a refused group. */
import t from 'tap'
import * as v from 'valibot'
import { entryBytes, EventIdSchema, groupByteBudget, LogBatchSchema, storeIsolating, takeCount, timeOrderedEventId } from '../../../src/queue/model/log-batch.js'

t.test('event ids', async (t) => {
  const cases: Array<[unknown, boolean, string]> = [
    ['0b6f3c2e-1d7a-4f36-9a4e-3c1f5b8e2d10', true, 'a UUID'],
    [`idem-${'a'.repeat(64)}`, true, 'an idempotent id'],
    ['threat-156-review-29000000', true, 'a threat detection id'],
    ['x'.repeat(80), true, '80 characters'],
    ['x'.repeat(81), false, '81 characters: the dedupe key would not fit'],
    ['', false, 'empty'],
    ['job:log:1', false, 'a colon (BullMQ refuses it in a job id)'],
    ['a b', false, 'a space'],
    ['a\nb', false, 'a newline'],
    ['é', false, 'non-ASCII'],
    [42, false, 'a number'],
  ]
  for (const [id, ok, what] of cases) t.equal(v.is(EventIdSchema, id), ok, what)
})

t.test('time-ordered event ids: the time first, then the random part of a UUID; they sort by time', async (t) => {
  const uuid = '0b6f3c2e-1d7a-4f36-9a4e-3c1f5b8e2d10'
  t.equal(timeOrderedEventId(1_764_328_800_123, uuid), '019aca30ff7b-4f36-9a4e-3c1f5b8e2d10')
  t.equal(timeOrderedEventId(0, uuid), '000000000000-4f36-9a4e-3c1f5b8e2d10', 'the epoch pads')
  t.equal(timeOrderedEventId(-5, uuid), '000000000000-4f36-9a4e-3c1f5b8e2d10', 'a clock before the epoch pads too')
  t.ok(v.is(EventIdSchema, timeOrderedEventId(Date.now(), uuid)), 'a valid event id')
  const ids = [1_764_328_800_123, 1_764_328_800_124, 1_764_328_801_000, 2_000_000_000_000].map((ms) => timeOrderedEventId(ms, 'ffffffff-ffff-4fff-bfff-ffffffffffff'))
  t.same([...ids].sort(), ids, 'later times sort later, whatever the random part')
  t.ok(timeOrderedEventId(1_764_328_800_124, '00000000-0000-4000-8000-000000000000') > timeOrderedEventId(1_764_328_800_123, 'ffffffff-ffff-4fff-bfff-ffffffffffff'))
})

t.test('a batch holds at least one event with an id; the events themselves are checked one by one later', async (t) => {
  t.equal(v.is(LogBatchSchema, { events: [{ id: 'a', event: { anything: true } }] }), true)
  t.equal(v.is(LogBatchSchema, { events: [{ id: 'a', event: null }, { id: 'b', event: 'junk' }] }), true, 'a malformed event does not fail the batch')
  t.equal(v.is(LogBatchSchema, { events: [] }), false, 'empty')
  t.equal(v.is(LogBatchSchema, { events: [{ event: {} }] }), false, 'no id')
  t.equal(v.is(LogBatchSchema, { events: [{ id: 'a:b', event: {} }] }), false, 'a bad id')
  t.equal(v.is(LogBatchSchema, {}), false, 'no events')
  t.equal(v.is(LogBatchSchema, null), false, 'null')
})

t.test('entryBytes bounds what an entry takes in the INSERT', async (t) => {
  const base = { eventType: 'e', description: 'd', source: 'api:x' }
  const small = entryBytes(base)
  t.ok(small >= 256, 'a row overhead is counted')
  for (const [what, description] of [
    ['4,000 ASCII characters', 'd'.repeat(4000)],
    ['4,000 quotes (each escaped to 2 bytes)', "'".repeat(4000)],
    ['2,000 emoji (4 bytes of UTF-8 per 2 units)', '😀'.repeat(2000)],
    ['4,000 CJK characters (3 bytes each)', '漢'.repeat(4000)],
    ['newlines and NULs', '\n\u0000'.repeat(2000)],
  ] as const) {
    const utf8 = Buffer.byteLength(description)
    const escaped = utf8 + [...description].filter((c) => `\n\r\u0000'"\\\b\t\u001a`.includes(c)).length
    t.ok(entryBytes({ ...base, description }) >= escaped, `${what}: ${entryBytes({ ...base, description })} >= ${escaped}`)
  }
  t.ok(entryBytes({ ...base, data: { long: 'x'.repeat(1000) } }) > small + 3000, 'data counts by its JSON')
  t.equal(entryBytes({ ...base, platformUsername: null, issuedBy: null, sourceIp: null }), small, 'absent fields count nothing')
})

t.test('groupByteBudget: half the packet, within 64 KiB and 8 MiB; a missing value falls back to 4 MiB', async (t) => {
  t.equal(groupByteBudget(16 * 1024 * 1024), 8 * 1024 * 1024)
  t.equal(groupByteBudget(64 * 1024 * 1024), 8 * 1024 * 1024)
  t.equal(groupByteBudget(4 * 1024 * 1024), 2 * 1024 * 1024)
  t.equal(groupByteBudget(1024), 64 * 1024)
  t.equal(groupByteBudget(Number.NaN), 2 * 1024 * 1024)
  t.equal(groupByteBudget(0), 2 * 1024 * 1024)
})

t.test('takeCount takes in order within both bounds, and always one', async (t) => {
  const cases: Array<[number[], number, number, number, string]> = [
    [[10, 10, 10], 5, 100, 3, 'all fit'],
    [[10, 10, 10], 2, 100, 2, 'the count bound'],
    [[10, 10, 10], 5, 25, 2, 'the byte bound'],
    [[10, 10, 10], 5, 30, 3, 'exactly at the byte bound'],
    [[500, 10], 5, 100, 1, 'one larger than the budget goes alone'],
    [[10, 500, 10], 5, 100, 1, 'a large one waits for the next group; order is kept'],
    [[], 5, 100, 0, 'nothing to take'],
  ]
  for (const [sizes, count, bytes, want, what] of cases) t.equal(takeCount(sizes, count, bytes), want, what)
  t.equal(takeCount([500, 10], 5, 100, false), 0, 'a group already started leaves a large one for the next')
  t.equal(takeCount([40, 40, 40], 5, 100, false), 2, 'a group already started takes what fits')
})

t.test('storeIsolating', async (t) => {
  /** A store that refuses any part containing a poison number (and fails for an outage on a part starting at `outage`). */
  const store = (poison: Set<number>, outage?: number) => {
    const attempts: number[][] = []
    const stored: number[] = []
    return {
      attempts,
      stored,
      attempt: async (part: readonly number[]) => {
        attempts.push([...part])
        if (outage !== undefined && part[0] === outage) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })
        const bad = part.find((n) => poison.has(n))
        if (bad !== undefined) throw new Error(`refused ${bad}`)
        stored.push(...part)
      },
    }
  }
  const abortOnOutage = (err: unknown) => (err as { code?: string }).code === 'ECONNREFUSED'
  const items = Array.from({ length: 16 }, (_, i) => i)

  t.test('a clean list is stored in one attempt', async (t) => {
    const s = store(new Set())
    t.same(await storeIsolating(items, s.attempt, abortOnOutage), [])
    t.same(s.attempts, [items])
    t.same(s.stored, items)
  })

  t.test('one poison item: the others are stored, in order, in about 2 log2(n) attempts', async (t) => {
    const s = store(new Set([11]))
    const poisoned = await storeIsolating(items, s.attempt, abortOnOutage)
    t.same(poisoned.map((p) => [p.item, (p.error as Error).message]), [[11, 'refused 11']])
    t.same(s.stored, items.filter((n) => n !== 11), 'every other item, in order')
    t.ok(s.attempts.length <= 2 * Math.log2(items.length) + 1, `${s.attempts.length} attempts`)
  })

  t.test('several poison items, first and last included', async (t) => {
    const s = store(new Set([0, 7, 15]))
    const poisoned = await storeIsolating(items, s.attempt, abortOnOutage)
    t.same(poisoned.map((p) => p.item), [0, 7, 15])
    t.same(s.stored, items.filter((n) => ![0, 7, 15].includes(n)))
  })

  t.test('every item refused: every item is reported (the caller treats that as a failure of all)', async (t) => {
    const s = store(new Set(items))
    const poisoned = await storeIsolating(items, s.attempt, abortOnOutage)
    t.same(poisoned.map((p) => p.item), items)
    t.same(s.stored, [])
  })

  t.test('an outage ends the bisection at once and is thrown; halves stored before it stay stored', async (t) => {
    const s = store(new Set([2]), 8)
    await t.rejects(storeIsolating(items, s.attempt, abortOnOutage), { message: 'connect ECONNREFUSED' })
    t.same(s.stored, [0, 1, 3, 4, 5, 6, 7], 'the first half was bisected and stored before the outage hit')
  })

  t.test('a single item and an empty list', async (t) => {
    const one = store(new Set([5]))
    t.same((await storeIsolating([5], one.attempt, abortOnOutage)).map((p) => p.item), [5])
    t.same(one.attempts, [[5]])
    const none = store(new Set())
    t.same(await storeIsolating([], none.attempt, abortOnOutage), [])
    t.same(none.attempts, [])
  })
})
