/**
 * The worker's group commit on the real MariaDB: what several jobs hand in together is one transaction, in hand-in
 * order, within the row and byte bounds; a poison entry costs only itself; a failure of all (a table gone) fails every
 * job with its own error; an outage fails every job of the group, and nothing is stored twice when they run again.
 */
import { sql } from 'kysely'
import t from 'tap'
import type { NewLogEntry } from '../../src/mysql/log-entry-rows.js'
import { createTransactions } from '../../src/mysql/transactions.js'
import { createLogGroupCommit } from '../../src/queue/log-group-commit.js'
import { createDatabase } from '../../src/mysql/connection.js'
import { startStack, type Stack } from '../helpers/stack.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'

let stack: Stack

t.before(async () => {
  stack = await startStack(t, { front: false, consumers: [] })
})

let serial = 0
const entry = (eventType: string, more: Partial<NewLogEntry> = {}): NewLogEntry => ({
  dedupeKey: `job:log:gc-${++serial}`,
  category: 'server',
  eventType,
  description: `${eventType} #${serial}`,
  source: 'api:test',
  receivedAt: new Date(),
  ...more,
})

/** The real transactions, recording the size of each group they are asked to store. */
function recording(db = stack.db) {
  const transactions = createTransactions(db)
  const groups: number[] = []
  return {
    groups,
    storeLogEntries: (entries: readonly NewLogEntry[]) => {
      groups.push(entries.length)
      return transactions.storeLogEntries(entries)
    },
  }
}

const storedTypes = async (prefix: string) =>
  (await stack.db.selectFrom('log_entries').select('event_type').where('event_type', 'like', `${prefix}%`).orderBy('id').execute()).map((r) => r.event_type)

t.test('jobs handed in together are one transaction, stored in hand-in order', async (t) => {
  const rec = recording()
  const commit = createLogGroupCommit({ storeLogEntries: rec.storeLogEntries, maxBytes: 1024 * 1024 })
  const jobs = Array.from({ length: 10 }, (_, j) => Array.from({ length: 5 }, (_, i) => entry(`together_${j}_${i}`)))
  const outcomes = await Promise.all(jobs.map((entries) => commit.store(entries)))
  t.same(rec.groups, [50], 'one group of every entry')
  for (const o of outcomes) t.same(o, { stored: 5, created: 5, infractions: 0, poisoned: [] })
  t.same(await storedTypes('together_'), jobs.flat().map((e) => e.eventType), 'ids rise in hand-in order')
})

t.test('groups respect the row and byte bounds, and a job larger than a group is split across groups in order', async (t) => {
  const rec = recording()
  const commit = createLogGroupCommit({ storeLogEntries: rec.storeLogEntries, maxBytes: 1024 * 1024, maxRows: 30 })
  const big = Array.from({ length: 70 }, (_, i) => entry(`rows_big_${String(i).padStart(2, '0')}`))
  const small = Array.from({ length: 5 }, (_, i) => entry(`rows_small_${i}`))
  const [a, b] = await Promise.all([commit.store(big), commit.store(small)])
  t.same(rec.groups, [30, 30, 15], 'the big job fills two groups; its rest shares the third with the small job')
  t.equal(a.stored, 70)
  t.equal(b.stored, 5)
  t.same(await storedTypes('rows_'), [...big, ...small].map((e) => e.eventType))

  const bytes = recording()
  const tight = createLogGroupCommit({ storeLogEntries: bytes.storeLogEntries, maxBytes: 20_000 })
  const large = Array.from({ length: 6 }, (_, i) => entry(`bytes_${i}`, { description: 'd'.repeat(2000) }))
  await tight.store(large)
  t.same(bytes.groups, [3, 3], 'about 6.3 KB per entry by entryBytes: three per 20 KB group')
})

t.test('a poison entry costs only itself; the other jobs of the group resolve in full', async (t) => {
  const rec = recording()
  const commit = createLogGroupCommit({ storeLogEntries: rec.storeLogEntries, maxBytes: 1024 * 1024 })
  const clean = Array.from({ length: 8 }, (_, i) => entry(`poison_clean_${i}`))
  const mixed = [entry('poison_mixed_0'), entry('poison_mixed_1', { platformUsername: 'U'.repeat(33) }), entry('poison_mixed_2')]
  const [a, b] = await Promise.all([commit.store(clean), commit.store(mixed)])
  t.same(a, { stored: 8, created: 8, infractions: 0, poisoned: [] })
  t.equal(b.stored, 2)
  t.same(b.poisoned.map((p) => p.item.eventType), ['poison_mixed_1'])
  t.match((b.poisoned[0]!.error as Error).message, /Data too long for column 'platform_username'/)
  t.same(await storedTypes('poison_'), [...clean.map((e) => e.eventType), 'poison_mixed_0', 'poison_mixed_2'])
})

t.test('a failure of all (the table gone) fails each job with its own error; nothing is stored', async (t) => {
  const commit = createLogGroupCommit({ storeLogEntries: recording().storeLogEntries, maxBytes: 1024 * 1024 })
  await sql`RENAME TABLE log_entries TO log_entries_gone`.execute(stack.db)
  let renamed = true
  t.teardown(async () => {
    if (renamed) await sql`RENAME TABLE log_entries_gone TO log_entries`.execute(stack.db)
  })
  const outcomes = await Promise.allSettled([commit.store([entry('gone_a'), entry('gone_b')]), commit.store([entry('gone_c')])])
  t.same(outcomes.map((o) => o.status), ['rejected', 'rejected'])
  for (const o of outcomes) t.match((o as PromiseRejectedResult).reason.message, /log_entries/)
  await sql`RENAME TABLE log_entries_gone TO log_entries`.execute(stack.db)
  renamed = false
  t.same(await storedTypes('gone_'), [])
})

t.test('an outage fails every job of the group; run again, each entry is stored once', async (t) => {
  const proxy = await startTcpProxy('127.0.0.1', 3306)
  const db = createDatabase(stack.config.databaseUrl.replace(':3306/', `:${proxy.port}/`), 2)
  t.teardown(async () => {
    await db.destroy()
    await proxy.close()
  })
  const commit = createLogGroupCommit({ storeLogEntries: recording(db).storeLogEntries, maxBytes: 1024 * 1024 })
  const first = [entry('outage_0'), entry('outage_1')]
  const second = [entry('outage_2')]
  await commit.store([entry('outage_warm')])
  proxy.cut()
  const failed = await Promise.allSettled([commit.store(first), commit.store(second)])
  t.same(failed.map((o) => o.status), ['rejected', 'rejected'], 'both jobs fail (BullMQ retries them)')
  proxy.restore()
  const again = await Promise.all([commit.store(first), commit.store(second), commit.store(first)])
  t.same(again.map((o) => o.stored), [2, 1, 2])
  t.same(await storedTypes('outage_'), ['outage_warm', 'outage_0', 'outage_1', 'outage_2'], 'each once, in order')
})

t.test('idle resolves once nothing is waiting or being stored', async (t) => {
  const commit = createLogGroupCommit({ storeLogEntries: recording().storeLogEntries, maxBytes: 1024 * 1024 })
  await commit.idle()
  let stored = false
  void commit.store([entry('idle_0')]).then(() => (stored = true))
  await commit.idle()
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(stored, true)
})

t.test('right after a commit, a small group waits for more, and goes as soon as minRows entries wait', async (t) => {
  const rec = recording()
  const commit = createLogGroupCommit({ storeLogEntries: rec.storeLogEntries, maxBytes: 1024 * 1024, minRows: 20, lingerMs: 10_000 })
  const first = Array.from({ length: 5 }, (_, i) => entry(`linger_a_${i}`))
  await commit.store(first)
  t.same(rec.groups, [5], 'an idle group commit stores at once')
  let secondDone = false
  const second = commit.store(Array.from({ length: 5 }, (_, i) => entry(`linger_b_${i}`))).then((o) => ((secondDone = true), o))
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(secondDone, false, 'five entries right after a commit wait for company')
  t.same(rec.groups, [5])
  const third = commit.store(Array.from({ length: 15 }, (_, i) => entry(`linger_c_${i}`)))
  t.same([(await second).stored, (await third).stored], [5, 15])
  t.same(rec.groups, [5, 20], 'twenty waiting: one group, without waiting out the linger')
  await commit.idle()
})

t.test('a small group waits no longer than lingerMs after the commit before it', async (t) => {
  const rec = recording()
  const commit = createLogGroupCommit({ storeLogEntries: rec.storeLogEntries, maxBytes: 1024 * 1024, minRows: 100, lingerMs: 300 })
  await commit.store([entry('linger_short_0')])
  const handedIn = performance.now()
  t.same(await commit.store([entry('linger_short_1')]), { stored: 1, created: 1, infractions: 0, poisoned: [] })
  t.ok(performance.now() - handedIn >= 200, 'it waited for company (about 300 ms)')
  t.same(rec.groups, [1, 1], 'nobody came: stored alone once the linger was over')
})

t.test('a group stops waiting once maxWaitingJobs jobs wait in it, however few their entries', async (t) => {
  const rec = recording()
  const commit = createLogGroupCommit({ storeLogEntries: rec.storeLogEntries, maxBytes: 1024 * 1024, minRows: 1000, lingerMs: 60_000, maxWaitingJobs: 3 })
  await commit.store([entry('linger_full_0')])
  const outcomes = await Promise.all([1, 2, 3].map((i) => commit.store([entry(`linger_full_${i}`)])))
  t.same(outcomes.map((o) => o.stored), [1, 1, 1], 'stored without waiting out the minute: the consumers cannot hand in more')
  t.same(rec.groups, [1, 3])
})
