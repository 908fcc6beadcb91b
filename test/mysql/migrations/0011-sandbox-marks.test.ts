/**
 * Migration 0011 on a table that holds destinations: each keeps its row and counts as a real one (sandbox 0); the
 * previous release's insert, which does not name the column, still works; down drops the column; up again works.
 */
import { sql } from 'kysely'
import t from 'tap'
import { createMigrator } from '../../../src/mysql/migrate.js'
import { unmigratedDatabase } from '../../helpers/stack.js'

t.test('migration 0011', async (t) => {
  const { db } = await unmigratedDatabase(t)
  const migrator = createMigrator(db)
  t.notOk((await migrator.migrateTo('0010-delivery-digest')).error)
  await sql`INSERT INTO log_destinations (category, kind, target, set_by) VALUES ('server', 'channel', '100000000000000012', 'env:LOG_DESTINATION_SERVER')`.execute(db)

  t.notOk((await migrator.migrateTo('0011-sandbox-marks')).error, 'up')
  const read = () => sql<{ category: string; set_by: string; sandbox: number }>`SELECT category, set_by, sandbox FROM log_destinations ORDER BY category`.execute(db).then((r) => r.rows)
  t.same(await read(), [{ category: 'server', set_by: 'env:LOG_DESTINATION_SERVER', sandbox: 0 }], 'an existing destination is a real one')
  await sql`INSERT INTO log_destinations (category, kind, target, set_by) VALUES ('ingame', 'channel', '100000000000000013', 'cli:old-release')`.execute(db)
  t.same((await read()).map((r) => r.sandbox), [0, 0], "the previous release's insert works and makes a real destination")

  t.notOk((await migrator.migrateTo('0010-delivery-digest')).error, 'down')
  const { rows } = await sql<{ Field: string }>`SHOW COLUMNS FROM log_destinations WHERE Field = 'sandbox'`.execute(db)
  t.same(rows, [], 'the column dropped')
  t.notOk((await migrator.migrateToLatest()).error, 'and up again')
})
