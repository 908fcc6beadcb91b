/** What a front remembers of rate-limit windows, and the outcome of a count (src/redis/model/rate-limit-windows.ts). */
import t from 'tap'
import {
  afterCount,
  afterSpare,
  answerLocally,
  createWindowTable,
  outcomeOf,
  refusal,
  spareCeiling,
  wantsSpare,
  type KnownWindow,
} from '../../../src/redis/model/rate-limit-windows.js'

const callbacks = { points: 100, seconds: 10 }

t.test('outcomes', async (t) => {
  const cases: Array<[string, number, number, unknown]> = [
    ['the first request of a window', 1, 10_000, { ok: true, state: { limit: 100, remaining: 99, resetSeconds: 10 } }],
    ['the last point', 100, 4_001, { ok: true, state: { limit: 100, remaining: 0, resetSeconds: 5 } }],
    ['one over', 101, 4_001, { ok: false, retryAfterSeconds: 5, limit: 100, windowSeconds: 10, state: { limit: 100, remaining: 0, resetSeconds: 5 } }],
    ['far over, the window about to end: Retry-After is at least 1', 5_000, 3, { ok: false, retryAfterSeconds: 1, limit: 100, windowSeconds: 10, state: { limit: 100, remaining: 0, resetSeconds: 1 } }],
    ['a window that has just ended reads 0 s, never negative', 7, -20, { ok: true, state: { limit: 100, remaining: 93, resetSeconds: 0 } }],
    ['refused as the window ends: Retry-After 1, Reset 0', 101, -1, { ok: false, retryAfterSeconds: 1, limit: 100, windowSeconds: 10, state: { limit: 100, remaining: 0, resetSeconds: 0 } }],
  ]
  for (const [name, used, msLeft, expected] of cases) t.same(outcomeOf(callbacks, used, msLeft), expected, name)
  t.same(refusal({ points: 10, seconds: 60 }, 41_500), outcomeOf({ points: 10, seconds: 60 }, 11, 41_500), 'a refusal from memory reads as one from Redis')
})

t.test('the table of known windows', async (t) => {
  t.test('a window is known until it ends, then forgotten', async (t) => {
    const table = createWindowTable(10)
    table.set('k', { endsAt: 1_000, used: 3, spare: 0, refilling: false })
    t.same(table.get('k', 999), { endsAt: 1_000, used: 3, spare: 0, refilling: false })
    t.equal(table.get('k', 1_000), undefined, 'at its end the window is over')
    t.equal(table.size, 0)
    t.equal(table.get('never', 0), undefined)
  })

  t.test('a later count replaces what was known', async (t) => {
    const table = createWindowTable(10)
    table.set('k', { endsAt: 10_000, used: 1, spare: 0, refilling: false })
    table.set('k', { endsAt: 10_000, used: 2, spare: 3, refilling: false })
    t.same(table.get('k', 5), { endsAt: 10_000, used: 2, spare: 3, refilling: false })
    t.equal(table.size, 1)
  })

  t.test('bounded: when full, the oldest eighth goes, and what was learnt again counts as new', async (t) => {
    const table = createWindowTable(16)
    for (let i = 0; i < 16; i++) table.set(`k${i}`, { endsAt: 1e9, used: 1, spare: 0, refilling: false })
    table.set('k0', { endsAt: 1e9, used: 1, spare: 0, refilling: false })
    table.set('k16', { endsAt: 1e9, used: 1, spare: 0, refilling: false })
    t.equal(table.size, 15, '16 entries, two pushed out, one added')
    t.ok(table.get('k0', 0), 'k0 was learnt again, so it is among the newest')
    t.equal(table.get('k1', 0), undefined)
    t.equal(table.get('k2', 0), undefined)
    t.ok(table.get('k3', 0))
    for (let i = 0; i < 100_000; i++) table.set(`c${i}`, { endsAt: 1e9, used: i, spare: 0, refilling: false })
    t.ok(table.size <= 16, `never over its bound (${table.size})`)
  })

  t.test('hostile sizes still hold at least one window', async (t) => {
    for (const max of [0, -5, 0.5, Number.NaN]) {
      const table = createWindowTable(max)
      table.set('a', { endsAt: 1, used: 1, spare: 0, refilling: false })
      table.set('b', { endsAt: 1, used: 1, spare: 0, refilling: false })
      t.equal(table.size, 1, String(max))
    }
  })
})

t.test('what a front answers alone, and when it asks for a spare', async (t) => {
  const w = (over: Partial<KnownWindow>): KnownWindow => ({ endsAt: 10_000, used: 5, spare: 0, refilling: false, ...over })

  t.test('a held spare answers the request (counted as its own place in the window) and is used up', async (t) => {
    const window = w({ spare: 7 })
    t.same(answerLocally(window, callbacks, 2_500), { ok: true, state: { limit: 100, remaining: 93, resetSeconds: 8 } })
    t.equal(window.spare, 0)
    t.equal(answerLocally(window, callbacks, 2_500), undefined, 'then Redis counts the next one')
  })

  t.test('at the budget the client is refused until the window ends, but a spare it was given is still its own', async (t) => {
    t.same(answerLocally(w({ used: 100 }), callbacks, 9_000), refusal(callbacks, 1_000))
    t.match(answerLocally(w({ used: 100, spare: 99 }), callbacks, 9_000), { ok: true, state: { remaining: 1 } })
  })

  t.test('a spare is asked for only when none is held or asked for, and it leaves the last point to Redis', async (t) => {
    t.equal(spareCeiling(callbacks), 99)
    t.equal(spareCeiling({ points: 1, seconds: 60 }), 0, 'a budget of one never gets spares')
    const cases: Array<[string, Partial<KnownWindow>, boolean]> = [
      ['room left', { used: 5 }, true],
      ['the spare would be the 99th', { used: 98 }, true],
      ['the spare would be the 100th', { used: 99 }, false],
      ['one held', { spare: 6 }, false],
      ['one asked for', { refilling: true }, false],
      ['spent', { used: 100 }, false],
    ]
    for (const [name, over, expected] of cases) t.equal(wantsSpare(w(over), callbacks), expected, name)
  })

  t.test('counts: a count of 1 opens a new window and drops the old spare; otherwise the known window is kept', async (t) => {
    const known = w({ spare: 6, used: 6 })
    t.same(afterCount(known, known, 1, 10_000, 50_000), { endsAt: 60_000, used: 1, spare: 0, refilling: false }, 'Redis lost or ended the window')
    t.equal(afterCount(known, known, 9, -1, 50_000), known)
    t.equal(known.used, 9)
    t.equal(afterCount(undefined, known, 10, -1, 50_000), known, 'pushed out of the table meanwhile: the same window again')
    t.same(afterCount(undefined, undefined, 3, 4_000, 50_000), { endsAt: 54_000, used: 3, spare: 0, refilling: false }, 'learnt now')
    const current = w({ used: 4 })
    t.equal(afterCount(current, undefined, 8, 7_000, 50_000), current, 'learnt by another answer of the same batch: kept, its end as first read')
    t.equal(current.endsAt, 10_000)
  })

  t.test('spares answered: granted is held; refused means no more spares this window', async (t) => {
    const window = w({ refilling: true })
    afterSpare(window, 12, callbacks)
    t.same(window, { endsAt: 10_000, used: 12, spare: 12, refilling: false })
    const refused = w({ refilling: true, used: 40 })
    afterSpare(refused, 0, callbacks)
    t.same(refused, { endsAt: 10_000, used: 99, spare: 0, refilling: false })
    t.equal(wantsSpare(refused, callbacks), false)
    t.equal(answerLocally(refused, callbacks, 0), undefined, 'but its requests are still counted in Redis')
  })
})
