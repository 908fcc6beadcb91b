/** The drills' counting: accepted against stored, error kinds, order breaks and recovery time. */
import t from 'tap'
import { countError, errorKind, formatErrors, lastBacklogStored, longestGapMs, orderBreaks, recoverySeconds, tallyStored, type ErrorCounts } from '../../../tools/drills/tally.js'

t.test('tallyStored', async (t) => {
  const cases: Array<{ name: string; accepted: string[]; stored: Array<[string, number]>; want: ReturnType<typeof tallyStored> }> = [
    { name: 'nothing sent', accepted: [], stored: [], want: { accepted: 0, stored: 0, lost: 0, duplicated: 0, unacknowledged: 0 } },
    {
      name: 'every accepted event stored once',
      accepted: ['d#0', 'd#1', 'd#2'],
      stored: [['d#0', 1], ['d#1', 1], ['d#2', 1]],
      want: { accepted: 3, stored: 3, lost: 0, duplicated: 0, unacknowledged: 0 },
    },
    {
      name: 'an accepted event missing from MySQL is lost',
      accepted: ['d#0', 'd#1', 'd#2'],
      stored: [['d#0', 1], ['d#2', 1]],
      want: { accepted: 3, stored: 2, lost: 1, duplicated: 0, unacknowledged: 0 },
    },
    {
      name: 'an event stored three times counts once as duplicated and once as stored',
      accepted: ['d#0', 'd#1'],
      stored: [['d#0', 3], ['d#1', 1]],
      want: { accepted: 2, stored: 2, lost: 0, duplicated: 1, unacknowledged: 0 },
    },
    {
      name: 'a row whose request failed client-side is unacknowledged, not lost or duplicated',
      accepted: ['d#0'],
      stored: [['d#0', 1], ['d#7', 1]],
      want: { accepted: 1, stored: 1, lost: 0, duplicated: 0, unacknowledged: 1 },
    },
    {
      name: 'an id accepted twice (a bug in the load) is one event',
      accepted: ['d#0', 'd#0'],
      stored: [],
      want: { accepted: 1, stored: 0, lost: 1, duplicated: 0, unacknowledged: 0 },
    },
    {
      name: 'a zero count is not stored',
      accepted: ['d#0'],
      stored: [['d#0', 0]],
      want: { accepted: 1, stored: 0, lost: 1, duplicated: 0, unacknowledged: 0 },
    },
  ]
  for (const c of cases) t.same(tallyStored(c.accepted, new Map(c.stored)), c.want, c.name)
})

t.test('errorKind', async (t) => {
  const cases: Array<[number | undefined, string | undefined, string]> = [
    [503, undefined, '503'],
    [429, 'ECONNRESET', '429'],
    [undefined, 'ECONNRESET', 'reset'],
    [undefined, 'EPIPE', 'reset'],
    [undefined, 'socket hang up', 'reset'],
    [0, 'ECONNREFUSED', 'refused'],
    [undefined, 'timeout', 'timeout'],
    [undefined, 'ETIMEDOUT', 'timeout'],
    [undefined, 'EHOSTUNREACH', 'ehostunreach'],
    [undefined, undefined, 'error'],
  ]
  for (const [status, code, want] of cases) t.equal(errorKind(status, code), want, `${status} ${code}`)
})

t.test('formatErrors', async (t) => {
  t.equal(formatErrors({}), 'none', 'no errors')
  t.equal(formatErrors({ '503': 0 }), 'none', 'zero counts are left out')
  const counts: ErrorCounts = {}
  for (let i = 0; i < 1057; i++) countError(counts, '503')
  countError(counts, 'reset')
  countError(counts, 'reset')
  countError(counts, 'refused')
  countError(counts, 'refused')
  t.equal(formatErrors(counts), '503 ×1,057, refused ×2, reset ×2', 'biggest first, ties by name, thousands separated')
})

t.test('orderBreaks', async (t) => {
  t.equal(orderBreaks([]), 0, 'empty')
  t.equal(orderBreaks([7]), 0, 'one entry')
  t.equal(orderBreaks([1, 2, 5, 9]), 0, 'ascending with gaps')
  t.equal(orderBreaks([1, 3, 2, 4]), 1, 'one swap')
  t.equal(orderBreaks([1, 2, 2, 3]), 1, 'a repeat is a break')
  t.equal(orderBreaks([4, 3, 2, 1]), 3, 'reversed')
})

t.test('recoverySeconds', async (t) => {
  t.equal(recoverySeconds(10_000, 12_500, 11_000), 2.5, 'the API answering later than the backlog store decides')
  t.equal(recoverySeconds(10_000, 10_100, 70_000), 60, 'the backlog stored a minute later decides')
  t.equal(recoverySeconds(10_000, 10_200, null), 0.2, 'no backlog: the first accepted request')
  t.equal(recoverySeconds(10_000, 9_000, 9_500), 0, 'both before the end of the fault')
  t.equal(recoverySeconds(10_000, null, 11_000), null, 'never answered again')
})

t.test('longestGapMs', async (t) => {
  t.equal(longestGapMs([], 1_000, 5_000), 4_000, 'no answer at all: the whole window')
  t.equal(longestGapMs([1_500, 2_000, 4_800], 1_000, 5_000), 2_800, 'the longest stretch between answers')
  t.equal(longestGapMs([4_800, 1_500, 2_000], 1_000, 5_000), 2_800, 'in any order')
  t.equal(longestGapMs([1_100, 1_200], 1_000, 5_000), 3_800, 'the stretch up to the end of the window counts')
  t.equal(longestGapMs([3_000, 4_000], 1_000, 5_000), 2_000, 'the stretch from the start of the window counts')
  t.equal(longestGapMs([500, 2_000, 9_000], 1_000, 5_000), 3_000, 'answers outside the window are left out')
})

t.test('lastBacklogStored: the newest row of the events accepted up to a moment, null when none is stored', async (t) => {
  const accepted = new Map([['a', 100], ['b', 200], ['c', 300]])
  const rows = new Map([['a', { lastMs: 150 }], ['b', { lastMs: 900 }], ['c', { lastMs: 400 }]])
  t.equal(lastBacklogStored(accepted, rows, 200), 900, 'b, accepted at the moment, stored last')
  t.equal(lastBacklogStored(accepted, rows, 150), 150, 'only a')
  t.equal(lastBacklogStored(accepted, rows, 99), null, 'nothing accepted yet')
  t.equal(lastBacklogStored(accepted, new Map([['c', { lastMs: 400 }]]), 200), null, 'accepted but not stored')
})
