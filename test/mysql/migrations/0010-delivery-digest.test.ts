/**
 * Migration 0010 on a table that holds entries: every delivery state is kept, `digested` becomes storable and
 * `pending_since` starts NULL (an entry waits from its receipt); down turns digested entries into `sent` (their digest
 * was posted) and drops the column; up again works.
 */
import { sql } from 'kysely'
import t from 'tap'
import { createMigrator } from '../../../src/mysql/migrate.js'
import { unmigratedDatabase } from '../../helpers/stack.js'

t.test('migration 0010', async (t) => {
  const { db } = await unmigratedDatabase(t)
  const migrator = createMigrator(db)
  t.notOk((await migrator.migrateTo('0007-log-search')).error)
  const states = ['pending', 'sent', 'failed', 'none'] as const
  await sql`INSERT INTO log_entries (dedupe_key, category, event_type, description, source, received_at, delivery_state)
    VALUES ${sql.join(states.map((s) => sql`(${`m:${s}`}, 'server', 'e', 'd', 'test', NOW(3), ${s})`))}`.execute(db)
  const read = () => sql<{ dedupe_key: string; delivery_state: string }>`SELECT dedupe_key, delivery_state FROM log_entries ORDER BY id`.execute(db).then((r) => r.rows)
  const before = await read()

  t.notOk((await migrator.migrateTo('0010-delivery-digest')).error, 'up')
  t.same(await read(), before, 'every state kept')
  const { rows: columns } = await sql<{ Field: string; Type: string; Null: string; Default: string | null }>`SHOW COLUMNS FROM log_entries WHERE Field IN ('delivery_state', 'pending_since')`.execute(db)
  t.same(columns.map((c) => [c.Field, c.Type, c.Null, c.Default]), [
    ['delivery_state', "enum('pending','sent','failed','none','digested')", 'NO', 'pending'],
    ['pending_since', 'datetime(3)', 'YES', null],
  ])
  await sql`UPDATE log_entries SET delivery_state = 'digested', delivery_message_id = '1234567890123456789' WHERE dedupe_key = 'm:pending'`.execute(db)

  t.notOk((await migrator.migrateTo('0007-log-search')).error, 'down')
  t.same((await read()).map((r) => r.delivery_state), ['sent', 'sent', 'failed', 'none'], 'a digested entry is sent after down')
  const { rows: after } = await sql<{ Field: string }>`SHOW COLUMNS FROM log_entries WHERE Field = 'pending_since'`.execute(db)
  t.same(after, [], 'pending_since dropped')
  t.notOk((await migrator.migrateToLatest()).error, 'and up again')
})
