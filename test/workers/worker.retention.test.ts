/**
 * The worker prunes the log on its own: the built `workers/worker.js` with LOG_RETENTION_DAYS=7 and a one-second
 * interval deletes the old entries in batches, keeps the infractions (pardoned or not) with their evidence, the entries
 * still pending delivery and the recent ones, logs one line per prune, exports its metrics, and prunes again at the
 * next interval.
 */
import { sql } from 'kysely'
import t from 'tap'
import { buildApp } from '../helpers/built-app.js'
import { jsonEntries } from '../helpers/parts.js'
import { allInfractions, entryIds, seedEntries, seedInfraction } from '../helpers/log-entry-seed.js'
import { startBuilt } from '../helpers/run-built.js'
import { freePort } from '../helpers/scratch.js'
import { eventually, getText, startStack } from '../helpers/stack.js'

const metric = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

t.test('the running worker prunes old entries by itself, every interval', async (t) => {
  const [app, stack] = await Promise.all([buildApp(t), startStack(t, { front: false, consumers: [] })])
  const old = await seedEntries(stack.db, { tag: 'old', count: 10, ageDays: 30 })
  const pending = await seedEntries(stack.db, { tag: 'old_pending', count: 1, ageDays: 30, state: 'pending' })
  const recent = await seedEntries(stack.db, { tag: 'recent', count: 3, ageDays: 6.9 })
  await seedInfraction(stack.db, old[2]!)
  await seedInfraction(stack.db, old[5]!, 'staff-member')
  const infractions = await allInfractions(stack.db)

  const port = await freePort()
  const worker = startBuilt(app, ['bind'], {
    DATABASE_URL: stack.config.databaseUrl,
    REDIS_URL: stack.config.redisUrl,
    REDIS_PREFIX: stack.config.redisPrefix,
    HOST: '127.0.0.1',
    WORKER_METRICS_PORT: String(port),
    LOG_LEVEL: 'info',
    LOG_RETENTION_DAYS: '7',
    LOG_PRUNE_INTERVAL_SECONDS: '1',
    LOG_PRUNE_BATCH_SIZE: '4',
    LOG_PRUNE_PAUSE_MS: '0',
  }, 'dist/workers/worker.js')
  let out = ''
  worker.stdout.on('data', (d: Buffer) => (out += d.toString()))
  worker.stderr.on('data', (d: Buffer) => (out += d.toString()))
  t.teardown(() => {
    worker.kill('SIGKILL')
  })
  const pruned = () => jsonEntries(out.split('\n')).filter((e) => e.msg === 'log entries pruned')

  const first = await eventually(async () => pruned()[0], 60_000, `a prune line; output:\n${out}`)
  t.match(first, { level: 30, deleted: 8, batches: 3, keptInfraction: 2, keptPending: 1 })
  t.same(await entryIds(stack.db), [old[2], old[5], ...pending, ...recent], 'left: the evidence, the pending entry and the recent ones')
  t.same(await allInfractions(stack.db), infractions, 'infractions and pardons untouched')

  const metrics = (await getText(`http://127.0.0.1:${port}/metrics`)).text
  t.equal(metric(metrics, 'presence_link_log_pruned_entries_total'), 8)
  t.equal(metric(metrics, 'presence_link_log_prune_kept_entries{reason="infraction"}'), 2)
  t.equal(metric(metrics, 'presence_link_log_prune_kept_entries{reason="pending"}'), 1)
  t.equal(metric(metrics, 'presence_link_log_prune_failures_total'), 0)
  t.ok((metric(metrics, 'presence_link_log_prune_last_success_timestamp_seconds') ?? 0) > 1.7e9, 'the last success is a recent unix time')

  // A day passes for the recent entries: they are 7.9 days old now.
  await sql`UPDATE log_entries SET created_at = created_at - INTERVAL 1 DAY WHERE event_type = 'recent'`.execute(stack.db)
  await eventually(async () => ((await entryIds(stack.db)).some((id) => recent.includes(id)) ? undefined : true), 30_000, 'the next prune')
  t.same(await entryIds(stack.db), [old[2], old[5], ...pending], 'the next interval pruned the entries that became old')
  // The line is written after the last DELETE commits, so it can reach us a moment after the rows are gone.
  t.equal(await eventually(async () => (pruned().some((e) => e.deleted === 3) ? true : undefined), 10_000, 'its log line'), true, 'with a line of its own')
  t.same(out.split('\n').filter((l) => l.includes('    at ')), [], 'no stack trace')
})
