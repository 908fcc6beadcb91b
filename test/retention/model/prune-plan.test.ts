/** The prune plan: the cutoff, the retention bounds, what one window of entries becomes, the tally and its report. */
import t from 'tap'
import {
  addWindow,
  describeTally,
  emptyTally,
  planWindow,
  pruneCutoff,
  retentionDaysProblem,
  type WindowRow,
} from '../../../src/retention/model/prune-plan.js'

const NOW = new Date('2026-11-26T12:00:00.000Z')
const CUTOFF = pruneCutoff(NOW, 90)
const at = (iso: string) => new Date(iso)
const row = (id: number, iso: string, extra: Partial<WindowRow> = {}): WindowRow => ({ id: String(id), createdAt: at(iso), pending: false, referenced: false, ...extra })

t.test('the cutoff is the database clock less the days', async (t) => {
  t.equal(CUTOFF.toISOString(), '2026-08-28T12:00:00.000Z')
  t.equal(pruneCutoff(NOW, 7).toISOString(), '2026-11-19T12:00:00.000Z')
  t.equal(pruneCutoff(NOW, 3650).toISOString(), '2016-11-28T12:00:00.000Z')
})

t.test('retention days: 0 keeps forever, 7 to 3650 prune, anything else is refused', async (t) => {
  for (const ok of [0, 7, 90, 3650]) t.equal(retentionDaysProblem(ok), null, String(ok))
  for (const bad of [1, 6, 3651, -1, 7.5, Number.NaN]) t.equal(retentionDaysProblem(bad), 'must be 0 (keep forever) or 7-3650 days', String(bad))
})

t.test('a window', async (t) => {
  t.test('old delivered entries go; evidence and pending ones stay; the first recent entry ends the prune', async (t) => {
    const plan = planWindow(
      [
        row(1, '2026-01-01T00:00:00.000Z'),
        row(2, '2026-01-02T00:00:00.000Z', { referenced: true }),
        row(3, '2026-01-03T00:00:00.000Z', { pending: true }),
        row(4, '2026-01-04T00:00:00.000Z', { referenced: true, pending: true }),
        row(5, '2026-08-28T11:59:59.999Z'),
        row(6, '2026-08-28T12:00:00.000Z'),
        row(7, '2026-01-05T00:00:00.000Z'),
      ],
      CUTOFF,
      7,
    )
    t.same(plan, { deleteIds: ['1', '5'], oldest: at('2026-01-01T00:00:00.000Z'), newest: at('2026-08-28T11:59:59.999Z'), keptReferenced: 2, keptPending: 1, nextAfter: null })
  })

  t.test('a full window of old entries carries on after its last id; a short one is the last', async (t) => {
    const rows = [row(10, '2026-01-01T00:00:00.000Z'), row(11, '2026-01-01T00:00:01.000Z', { referenced: true })]
    t.equal(planWindow(rows, CUTOFF, 2).nextAfter, '11')
    t.equal(planWindow(rows, CUTOFF, 3).nextAfter, null)
    t.same(planWindow([], CUTOFF, 1000), { deleteIds: [], oldest: null, newest: null, keptReferenced: 0, keptPending: 0, nextAfter: null })
  })

  t.test('only kept entries in a full window: nothing to delete, the walk goes on', async (t) => {
    const plan = planWindow([row(1, '2026-01-01T00:00:00.000Z', { referenced: true }), row(2, '2026-01-01T00:00:00.000Z', { pending: true })], CUTOFF, 2)
    t.same(plan.deleteIds, [])
    t.equal(plan.nextAfter, '2')
  })
})

t.test('the tally and its report', async (t) => {
  t.test('windows add up; oldest and newest span every window; one DELETE per window that had something to delete', async (t) => {
    let tally = emptyTally(CUTOFF, 90, false)
    tally = addWindow(tally, planWindow([row(1, '2026-02-01T00:00:00.000Z'), row(2, '2026-01-15T00:00:00.000Z', { pending: true })], CUTOFF, 2), 1)
    tally = addWindow(tally, planWindow([row(3, '2026-01-01T00:00:00.000Z', { referenced: true }), row(4, '2026-03-01T00:00:00.000Z')], CUTOFF, 2), 1)
    tally = addWindow(tally, planWindow([row(5, '2026-01-01T00:00:00.000Z', { referenced: true })], CUTOFF, 2), 0)
    t.same({ ...tally, complete: true }, {
      cutoff: CUTOFF, days: 90, dryRun: false, deleted: 2, oldest: at('2026-02-01T00:00:00.000Z'), newest: at('2026-03-01T00:00:00.000Z'),
      keptReferenced: 2, keptPending: 1, batches: 2, complete: true,
    })
    t.same(describeTally({ ...tally, complete: true }), [
      'cutoff: entries stored before 2026-08-28T12:00:00.000Z (90 days)',
      'kept: 2 an infraction references, 1 still pending delivery',
      'deleted 2 entries, stored 2026-02-01T00:00:00.000Z to 2026-03-01T00:00:00.000Z in 2 batches',
    ])
    t.equal(describeTally(tally).at(-1), 'deleted 2 entries, stored 2026-02-01T00:00:00.000Z to 2026-03-01T00:00:00.000Z in 2 batches (stopped early: the rest goes at the next run)')
  })

  t.test('a dry run says what would go and that nothing went; nothing to do reads plainly', async (t) => {
    const dry = addWindow(emptyTally(CUTOFF, 90, true), planWindow([row(1, '2026-02-01T00:00:00.000Z')], CUTOFF, 5), 1)
    t.equal(describeTally({ ...dry, complete: true }).at(-1), 'dry run: would delete 1 entries, stored 2026-02-01T00:00:00.000Z to 2026-02-01T00:00:00.000Z in 1 batch; nothing deleted')
    t.equal(describeTally({ ...emptyTally(CUTOFF, 90, true), complete: true }).at(-1), 'dry run: would delete 0 entries in 0 batches; nothing deleted')
    t.equal(describeTally({ ...emptyTally(CUTOFF, 90, false), complete: true }).at(-1), 'deleted 0 entries in 0 batches')
  })
})
