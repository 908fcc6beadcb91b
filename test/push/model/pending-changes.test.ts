import t from 'tap'
import { createPendingChanges } from '../../../src/push/model/pending-changes.js'

t.test('a change of a code already pending merges: the newer block, the older time', async (t) => {
  const pending = createPendingChanges()
  t.equal(pending.note('AB12', 'first', 100), false)
  t.equal(pending.note('CD34', 'other', 50), false)
  t.equal(pending.note('AB12', 'second', 200), true, 'coalesced')
  t.equal(pending.size, 2)
  t.same(pending.list(), [
    { code: 'CD34', block: 'other', since: 50 },
    { code: 'AB12', block: 'second', since: 100 },
  ])
})

t.test('settled codes leave; codes no server declares any more are forgotten', async (t) => {
  const pending = createPendingChanges()
  pending.note('AB12', 'a', 1)
  pending.note('CD34', 'b', 2)
  pending.note('EF56', 'c', 3)
  pending.settle(['AB12'])
  t.equal(pending.keepOnly(new Set(['EF56'])), 1)
  t.same(
    pending.list().map((p) => p.code),
    ['EF56'],
  )
  pending.settle(['EF56', 'ZZZZ'])
  t.equal(pending.size, 0)
})

t.test('equal times list in code order', async (t) => {
  const pending = createPendingChanges()
  for (const code of ['ZZ99', 'AA00', 'MM55']) pending.note(code, code, 7)
  t.same(
    pending.list().map((p) => p.code),
    ['AA00', 'MM55', 'ZZ99'],
  )
})
