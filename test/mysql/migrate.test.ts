/** Migrations: up, down and entries stored before delivery existed (src/mysql/migrate.ts). */
import t from 'tap'
import { sql } from 'kysely'
import { createMigrator } from '../../src/mysql/migrate.js'
import { insertLogEntry } from '../../src/mysql/log-entry-rows.js'
import { unmigratedDatabase } from '../helpers/stack.js'

t.test('entries stored before delivery existed are never sent; entries stored after start pending', async (t) => {
  const { db } = await unmigratedDatabase(t)
  const migrator = createMigrator(db)
  t.notOk((await migrator.migrateTo('0002-guild-whitelist')).error)
  await sql`INSERT INTO log_entries (dedupe_key, category, event_type, description, source, received_at) VALUES ('old', 'server', 'boot', 'before', 'test', NOW(3))`.execute(db)
  const latest = await migrator.migrateToLatest()
  t.notOk(latest.error, `to the latest: ${String(latest.error)} (${JSON.stringify(latest.results)})`)
  await insertLogEntry(db, { dedupeKey: 'new', category: 'server', eventType: 'boot', description: 'after', source: 'test', receivedAt: new Date() })
  const rows = await db.selectFrom('log_entries').select(['dedupe_key', 'delivery_state']).orderBy('id').execute()
  t.same(rows, [{ dedupe_key: 'old', delivery_state: 'none' }, { dedupe_key: 'new', delivery_state: 'pending' }])
  t.notOk((await migrator.migrateTo('0002-guild-whitelist')).error, 'and it migrates down cleanly')
  t.notOk((await migrator.migrateToLatest()).error)
})
