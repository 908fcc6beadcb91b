/** Drift between MySQL rows and their Redis copies, pure (src/copies/model/copy-drift.ts). */
import t from 'tap'
import { changesSince, extraEntries, holderRepairs, outdatedRows } from '../../../src/copies/model/copy-drift.js'

t.test('outdated rows: a missing, unreadable or older copy; never a newer one', async (t) => {
  const rows = [
    { id: 'missing', version: 1 },
    { id: 'older', version: 3 },
    { id: 'same', version: 2 },
    { id: 'newer-copy', version: 2 },
    { id: 'legacy', version: 1 },
  ]
  const stored = [undefined, 2, 2, 5, 0]
  t.same(outdatedRows(rows, stored).map((r) => r.id), ['missing', 'older', 'legacy'])
  t.same(outdatedRows([], []), [])
})

t.test('extra entries are the ids MySQL does not have', async (t) => {
  t.same(extraEntries(['A1B2', 'ZZZZ', 'a1b2'], new Set(['A1B2'])), ['ZZZZ', 'a1b2'], 'codes compare exactly (lowercase is another code)')
  t.same(extraEntries([], new Set(['A'])), [])
})

t.test('holder repairs: set to the live code, or cleared when there is none', async (t) => {
  const live = new Map([
    ['1', 'AAAA'],
    ['2', 'BBBB'],
    ['4', 'DDDD'],
  ])
  const stored = new Map([
    ['1', 'AAAA'],
    ['2', 'OLD2'],
    ['3', 'GONE'],
  ])
  t.same(holderRepairs(['1', '2', '3', '4', '5', '2'], live, stored), [
    { userId: '2', code: 'BBBB' },
    { userId: '3', code: '' },
    { userId: '4', code: 'DDDD' },
  ])
})

t.test('changes are read from before the last pass started', async (t) => {
  t.equal(changesSince(new Date('2026-11-23T08:00:05.000Z'), 5000).toISOString(), '2026-11-23T08:00:00.000Z')
})
