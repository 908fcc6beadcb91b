/** The stream benchmark's attribution of late changes: overlaps, heartbeat rounds, and the largest contribution named. */
import t from 'tap'
import { heartbeatRounds, lateDeliveries, overlapMs, type Timelines, type UpdateTiming } from '../../../../tools/bench/measurements/late-deliveries.js'

const T = 1_700_000_000_000

t.test('overlapMs', async (t) => {
  const cases: Array<[string, [number, number, number, number], number]> = [
    ['disjoint, before', [0, 10, 20, 5], 0],
    ['disjoint, after', [30, 10, 20, 5], 0],
    ['touching ends do not overlap', [0, 10, 10, 5], 0],
    ['inside', [12, 3, 10, 10], 3],
    ['covering', [0, 100, 10, 10], 10],
    ['straddling the start', [5, 10, 10, 10], 5],
    ['a zero-length window inside', [15, 0, 10, 10], 0],
  ]
  for (const [name, [a, aMs, b, bMs], want] of cases) t.equal(overlapMs(a, aMs, b, bMs), want, name)
})

t.test('heartbeatRounds groups arrivals less than the gap apart, in any order', async (t) => {
  t.same(heartbeatRounds([], 1000), [])
  t.same(heartbeatRounds([T + 15_000, T, T + 150, T + 15_010, T + 80], 1000), [
    { first: T, last: T + 150, count: 3 },
    { first: T + 15_000, last: T + 15_010, count: 2 },
  ])
  t.same(heartbeatRounds([T, T + 999, T + 1998], 1000), [{ first: T, last: T + 1998, count: 3 }], 'a chain of close arrivals is one round')
  t.same(heartbeatRounds([T, T + 1000], 1000), [{ first: T, last: T, count: 1 }, { first: T + 1000, last: T + 1000, count: 1 }])
})

const update = (n: number, sentAt: number, firstMs: number, lastMs: number, writeAckMs = 1): UpdateTiming => ({ n, sentAt, writeAckMs, deliveries: 250, firstMs, lastMs })
const quiet: Timelines = { frontGc: [], frontStalls: [], benchGc: [], benchStalls: [], heartbeats: [] }
const STREAMS = 1000
/** `count` heartbeat arrivals from `from`, one per millisecond. */
const arrivals = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i)

t.test('lateDeliveries', async (t) => {
  t.test('changes within the limit are not listed; exactly at the limit is not late', async (t) => {
    t.same(lateDeliveries([update(1, T, 3, 20), update(2, T + 250, 3, 50)], quiet, 50, STREAMS), [])
  })

  t.test('a change with no delivery at all (last is -Infinity) is not listed as late; one whose last is NaN neither', async (t) => {
    t.same(lateDeliveries([update(1, T, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY), update(2, T, Number.NaN, Number.NaN)], quiet, 50, STREAMS), [])
  })

  const cases: Array<{ name: string; update: UpdateTiming; timelines: Partial<Timelines>; cause: string; check?: Record<string, unknown> }> = [
    {
      name: 'a front collection inside the window is the cause when it is the largest part',
      update: update(3, T, 180, 200),
      timelines: { frontGc: [{ at: T + 5, ms: 170, kind: 'major' }, { at: T - 500, ms: 30, kind: 'minor' }], frontStalls: [{ at: T + 5, ms: 175, cpuMs: 175 }] },
      cause: 'front garbage collection',
      check: { frontGcMs: 170, frontBusyMs: 175, frontWaitingMs: 0, heartbeats: 0 },
    },
    {
      name: 'front work during a burst of heartbeats (more than a tenth of the streams in the window) is the heartbeat burst',
      update: update(4, T, 190, 212),
      timelines: { frontGc: [{ at: T + 100, ms: 4, kind: 'minor' }], frontStalls: [{ at: T - 20, ms: 200, cpuMs: 200 }], heartbeats: arrivals(T + 10, 150) },
      cause: 'heartbeat burst (front and clients busy with it)',
      check: { frontGcMs: 4, frontBusyMs: 180, heartbeats: 150 },
    },
    {
      name: 'so is a bench pause during a burst (the clients reading the heartbeats)',
      update: update(4, T, 190, 212),
      timelines: { frontStalls: [{ at: T, ms: 40, cpuMs: 40 }], benchStalls: [{ at: T + 5, ms: 190, cpuMs: 190 }], heartbeats: arrivals(T + 10, 150) },
      cause: 'heartbeat burst (front and clients busy with it)',
    },
    {
      name: 'but a collection during a burst stays the collection',
      update: update(4, T, 190, 212),
      timelines: { frontGc: [{ at: T, ms: 190, kind: 'major' }], frontStalls: [{ at: T, ms: 190, cpuMs: 190 }], heartbeats: arrivals(T + 10, 150) },
      cause: 'front garbage collection',
    },
    {
      name: 'the same work with heartbeats spread thin is other front work',
      update: update(4, T, 190, 212),
      timelines: { frontStalls: [{ at: T - 20, ms: 200, cpuMs: 200 }], heartbeats: [...arrivals(T - 500, 400), ...arrivals(T + 100, 100)] },
      cause: 'front busy (not a collection)',
      check: { heartbeats: 100 },
    },
    {
      name: 'a stall without CPU is the front waiting for a core; the part of a stall outside the window does not count',
      update: update(5, T, 150, 160),
      timelines: { frontStalls: [{ at: T - 100, ms: 250, cpuMs: 25 }] },
      cause: 'front waiting for a core',
      check: { frontBusyMs: 15, frontWaitingMs: 135 },
    },
    {
      name: 'a bench-process pause is named when the front was free',
      update: update(6, T, 150, 160),
      timelines: { benchGc: [{ at: T + 10, ms: 140, kind: 'major' }], benchStalls: [{ at: T + 10, ms: 145, cpuMs: 140 }] },
      cause: 'bench process',
      check: { benchGcMs: 140, benchStallMs: 145 },
    },
    {
      name: 'a slow Redis write is named when nothing else was',
      update: update(7, T, 95, 100, 90),
      timelines: {},
      cause: 'Redis write',
    },
    {
      name: 'deliveries spread out after a quick first one are the fan-out',
      update: update(8, T, 4, 120),
      timelines: {},
      cause: 'fan-out spread',
    },
  ]
  for (const c of cases) {
    t.test(c.name, async (t) => {
      const [late] = lateDeliveries([c.update], { ...quiet, ...c.timelines }, 50, STREAMS)
      t.equal(late?.cause, c.cause)
      t.equal(late?.n, c.update.n)
      if (c.check !== undefined) t.match(late, c.check)
    })
  }
})
