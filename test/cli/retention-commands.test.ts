/**
 * `presence-link logs prune` as the built CLI runs it against real MariaDB: a dry run prints exactly what would go
 * (count, oldest and newest, what stays and why) and changes nothing; without it the same entries go and the
 * infractions stay; LOG_RETENTION_DAYS=0 and a --days below the minimum are refused.
 */
import { sql } from 'kysely'
import t from 'tap'
import { buildApp } from '../helpers/built-app.js'
import { allInfractions, entryIds, seedEntries, seedInfraction } from '../helpers/log-entry-seed.js'
import { runBuilt } from '../helpers/run-built.js'
import { startStack } from '../helpers/stack.js'

t.test('logs prune', async (t) => {
  const [app, stack] = await Promise.all([buildApp(t), startStack(t, { front: false, consumers: [] })])
  const env = { DATABASE_URL: stack.config.databaseUrl, REDIS_URL: stack.config.redisUrl, REDIS_PREFIX: stack.config.redisPrefix, LOG_LEVEL: 'silent', LOG_PRUNE_BATCH_SIZE: '5' }
  const cli = (args: string[], over: Record<string, string> = {}) => runBuilt(app, ['logs', 'prune', ...args], { ...env, ...over }, { withinMs: 60_000 })

  const old = await seedEntries(stack.db, { tag: 'old', count: 12, ageDays: 100 })
  const pending = await seedEntries(stack.db, { tag: 'old_pending', count: 2, ageDays: 95, state: 'pending' })
  const recent = await seedEntries(stack.db, { tag: 'recent', count: 3, ageDays: 89 })
  await seedInfraction(stack.db, old[0]!)
  await seedInfraction(stack.db, old[7]!, 'staff-member')
  const infractions = await allInfractions(stack.db)
  const ids = await entryIds(stack.db)
  const stored = async (id: string) => (await stack.db.selectFrom('log_entries').select('created_at').where('id', '=', id).executeTakeFirstOrThrow()).created_at.toISOString()
  const [oldest, newest] = [await stored(old[1]!), await stored(old[11]!)]
  const cutoffLine = /^cutoff: entries stored before (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) \(90 days\)$/
  const dbNow = async () => (await sql<{ now: Date }>`SELECT NOW(3) AS now`.execute(stack.db)).rows[0]!.now.getTime()

  t.test('--dry-run prints what would go and deletes nothing', async (t) => {
    const before = await dbNow()
    const ran = await cli(['--dry-run'])
    const after = await dbNow()
    t.equal(ran.code, 0, ran.stderr)
    const lines = ran.stdout.trimEnd().split('\n')
    const cutoff = Date.parse(cutoffLine.exec(lines[0] ?? '')?.[1] ?? '')
    t.ok(cutoff >= before - 90 * 86_400_000 && cutoff <= after - 90 * 86_400_000, `the cutoff is 90 days before the run: ${lines[0]}`)
    t.same(lines.slice(1), [
      'kept: 2 an infraction references, 2 still pending delivery',
      `dry run: would delete 10 entries, stored ${oldest} to ${newest} in 3 batches; nothing deleted`,
    ])
    t.same(await entryIds(stack.db), ids, 'every entry still there')
  })

  t.test('refused: LOG_RETENTION_DAYS=0 without --days, and --days below 7', async (t) => {
    const off = await cli(['--dry-run'], { LOG_RETENTION_DAYS: '0' })
    t.equal(off.code, 64)
    t.match(off.stdout + off.stderr, /error: LOG_RETENTION_DAYS is 0 \(log entries are kept forever\): pass --days N to prune anyway/)
    const short = await cli(['--days', '3'])
    t.equal(short.code, 2)
    t.match(short.stdout + short.stderr, /--days/)
    const bad = await cli([], { LOG_RETENTION_DAYS: '3' })
    t.equal(bad.code, 78)
    t.match(bad.stderr, /LOG_RETENTION_DAYS must be 0 \(keep forever\) or 7-3650 days/)
    t.same(await entryIds(stack.db), ids)
  })

  t.test('without --dry-run the same entries go; infractions, their evidence, pending and recent entries stay', async (t) => {
    const ran = await cli([])
    t.equal(ran.code, 0, ran.stderr)
    const lines = ran.stdout.trimEnd().split('\n')
    t.match(lines[0], cutoffLine)
    t.same(lines.slice(1), ['kept: 2 an infraction references, 2 still pending delivery', `deleted 10 entries, stored ${oldest} to ${newest} in 3 batches`])
    t.same(await entryIds(stack.db), [old[0], old[7], ...pending, ...recent])
    t.same(await allInfractions(stack.db), infractions)
  })

  t.test('--days N overrides LOG_RETENTION_DAYS', async (t) => {
    const ran = await cli(['--days', '7', '--dry-run'], { LOG_RETENTION_DAYS: '0' })
    t.equal(ran.code, 0, ran.stderr)
    t.match(ran.stdout, /\(7 days\)\n/)
    t.match(ran.stdout, /dry run: would delete 3 entries, stored .* in 2 batches; nothing deleted\n$/)
  })
})
