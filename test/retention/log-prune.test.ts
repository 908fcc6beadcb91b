/**
 * One prune against real MariaDB: old entries go, recent ones stay, infractions and their pardons are untouched and
 * their evidence entries kept, entries pending delivery kept; a prune of more entries than one batch runs one
 * bounded DELETE per batch (counted by the server itself); a dry run changes nothing.
 */
import { sql, type Kysely } from 'kysely'
import t from 'tap'
import { createDatabase } from '../../src/mysql/connection.js'
import { createRetentionRows } from '../../src/mysql/log-entry-retention.js'
import type { Database } from '../../src/mysql/schema.js'
import { pruneLogEntries, type PruneOptions } from '../../src/retention/log-prune.js'
import { allInfractions, entryIds, seedEntries, seedInfraction } from '../helpers/log-entry-seed.js'
import { startStack, type Stack } from '../helpers/stack.js'

let stack: Stack
// One connection, so the server's per-session statement counters see every statement of the prune.
let single: Kysely<Database>

t.before(async () => {
  stack = await startStack(t, { front: false, consumers: [] })
  single = createDatabase(stack.config.databaseUrl, 1)
  t.teardown(() => single.destroy())
})

const deleteStatements = async () => {
  const { rows } = await sql<{ Value: string }>`SHOW SESSION STATUS LIKE 'Com_delete'`.execute(single)
  return Number(rows[0]!.Value)
}

const options = (over: Partial<PruneOptions> = {}): PruneOptions => ({ days: 30, batchSize: 1000, pauseMs: 0, dryRun: false, ...over })

t.test('old entries go, recent ones stay, infractions and pardons untouched with their evidence', async (t) => {
  await sql`DELETE FROM infractions`.execute(stack.db)
  await sql`DELETE FROM log_entries`.execute(stack.db)
  const old = await seedEntries(stack.db, { tag: 'old', count: 6, ageDays: 45 })
  await seedEntries(stack.db, { tag: 'old_failed', count: 2, ageDays: 40, state: 'failed' })
  await seedEntries(stack.db, { tag: 'old_none', count: 2, ageDays: 35, state: 'none' })
  const pending = await seedEntries(stack.db, { tag: 'old_pending', count: 2, ageDays: 50, state: 'pending' })
  const recent = await seedEntries(stack.db, { tag: 'recent', count: 3, ageDays: 29.9 })
  await seedInfraction(stack.db, old[1]!)
  await seedInfraction(stack.db, old[4]!, 'staff-member')
  await seedInfraction(stack.db, recent[0]!)
  const infractionsBefore = await allInfractions(stack.db)

  const tally = await pruneLogEntries(createRetentionRows(stack.db), options())
  t.match(tally, { deleted: 8, keptReferenced: 2, keptPending: 2, batches: 1, complete: true, dryRun: false })
  t.same(await entryIds(stack.db), [old[1], old[4], ...pending, ...recent], 'left: the evidence, the pending entries and the recent ones')
  t.same(await allInfractions(stack.db), infractionsBefore, 'every infraction and pardon exactly as before')

  const again = await pruneLogEntries(createRetentionRows(stack.db), options())
  t.match(again, { deleted: 0, keptReferenced: 2, keptPending: 2, batches: 0, complete: true }, 'a second prune finds nothing more')
})

t.test('more entries than one batch: one DELETE of at most a batch per window, as the server counts them', async (t) => {
  await sql`DELETE FROM infractions`.execute(stack.db)
  await sql`DELETE FROM log_entries`.execute(stack.db)
  await seedEntries(stack.db, { tag: 'bulk', count: 25, ageDays: 60 })
  const recent = await seedEntries(stack.db, { tag: 'recent', count: 2, ageDays: 1 })
  const before = await deleteStatements()
  const batches: number[] = []
  const tally = await pruneLogEntries(createRetentionRows(single), options({ batchSize: 10, pauseMs: 5, onBatch: (n) => batches.push(n) }))
  t.equal(await deleteStatements() - before, 3, 'three DELETE statements for 25 entries in batches of 10')
  t.same(batches, [10, 10, 5])
  t.match(tally, { deleted: 25, batches: 3, complete: true })
  t.same(await entryIds(stack.db), recent)
})

t.test('a dry run counts the same and deletes nothing', async (t) => {
  await sql`DELETE FROM infractions`.execute(stack.db)
  await sql`DELETE FROM log_entries`.execute(stack.db)
  const old = await seedEntries(stack.db, { tag: 'old', count: 12, ageDays: 45 })
  await seedEntries(stack.db, { tag: 'recent', count: 2, ageDays: 2 })
  await seedInfraction(stack.db, old[0]!)
  const ids = await entryIds(stack.db)
  const before = await deleteStatements()
  const dry = await pruneLogEntries(createRetentionRows(single), options({ batchSize: 5, dryRun: true }))
  t.equal(await deleteStatements(), before, 'no DELETE ran')
  t.same(await entryIds(stack.db), ids)
  t.match(dry, { deleted: 11, keptReferenced: 1, batches: 3, dryRun: true, complete: true })
  const real = await pruneLogEntries(createRetentionRows(single), options({ batchSize: 5 }))
  t.match(real, { deleted: dry.deleted, keptReferenced: 1, batches: dry.batches, oldest: dry.oldest, newest: dry.newest })
})

t.test('an entry replayed to pending after its window was read stays', async (t) => {
  await sql`DELETE FROM infractions`.execute(stack.db)
  await sql`DELETE FROM log_entries`.execute(stack.db)
  const old = await seedEntries(stack.db, { tag: 'old', count: 3, ageDays: 45 })
  const rows = createRetentionRows(stack.db)
  const replaying = {
    ...rows,
    window: async (after: string, limit: number) => {
      const window = await rows.window(after, limit)
      await stack.db.updateTable('log_entries').set({ delivery_state: 'pending' }).where('id', '=', old[2]!).execute()
      return window
    },
  }
  const tally = await pruneLogEntries(replaying, options())
  t.equal(tally.deleted, 2)
  t.same(await entryIds(stack.db), [old[2]])
})

t.test('a prune asked to stop stops before its next window and says it is not complete', async (t) => {
  await sql`DELETE FROM log_entries`.execute(stack.db)
  await seedEntries(stack.db, { tag: 'old', count: 9, ageDays: 45 })
  let windows = 0
  const rows = createRetentionRows(stack.db)
  const tally = await pruneLogEntries({ ...rows, window: (a, l) => (windows++, rows.window(a, l)) }, options({ batchSize: 3, shouldStop: () => windows >= 2 }))
  t.match(tally, { deleted: 6, batches: 2, complete: false })
  t.equal((await entryIds(stack.db)).length, 3)
})
