/**
 * Migration 0007 on a table that holds entries: one index per search filter (each ending in received_at) and one on
 * received_at, the two it supersedes gone, every entry kept; down puts the earlier indexes back, and up again works.
 * MariaDB either builds them online (LOCK=NONE) or refuses the statement, so its success is the online build.
 */
import { sql } from 'kysely'
import t from 'tap'
import { createMigrator } from '../../../src/mysql/migrate.js'
import { SEARCH_INDEXES } from '../../../src/mysql/model/log-search.js'
import { unmigratedDatabase } from '../../helpers/stack.js'

t.test('migration 0007', async (t) => {
  const { db } = await unmigratedDatabase(t)
  const migrator = createMigrator(db)
  t.notOk((await migrator.migrateTo('0006-push-targets')).error)
  const rows = Array.from({ length: 500 }, (_, i) => sql`(${`m:${i}`}, ${['server', 'ingame', 'moderation'][i % 3]!}, ${`e${i % 7}`}, 'd', ${i % 2 === 0 ? 'Builderman' : null}, ${i % 2 === 0 ? 156 : null}, ${i % 5 === 0 ? 'AB12' : null}, 'test', NOW(3) - INTERVAL ${i} SECOND)`)
  await sql`INSERT INTO log_entries (dedupe_key, category, event_type, description, platform_username, platform_user_id, code, source, received_at) VALUES ${sql.join(rows)}`.execute(db)
  const before = await db.selectFrom('log_entries').selectAll().orderBy('id').execute()

  /** Each index of log_entries with its columns in order. */
  const indexes = async () => {
    const { rows } = await sql<{ Key_name: string; Column_name: string; Seq_in_index: number }>`SHOW INDEX FROM log_entries`.execute(db)
    const out: Record<string, string[]> = {}
    for (const r of [...rows].sort((a, b) => a.Seq_in_index - b.Seq_in_index)) (out[r.Key_name] ??= []).push(r.Column_name)
    return out
  }
  const earlier = {
    PRIMARY: ['id'],
    log_entries_dedupe: ['dedupe_key'],
    log_entries_category: ['category', 'id'],
    log_entries_code: ['code', 'id'],
    log_entries_delivery: ['category', 'delivery_state', 'id'],
  }
  t.same(await indexes(), earlier, 'before: the indexes of 0001 and 0003')

  // To 0007 itself: later migrations may add columns (0010 adds pending_since), which the row comparison below would see.
  const up = await migrator.migrateTo('0007-log-search')
  t.notOk(up.error, String(up.error))
  const searched = {
    PRIMARY: ['id'],
    log_entries_dedupe: ['dedupe_key'],
    log_entries_delivery: ['category', 'delivery_state', 'id'],
    log_entries_time: ['received_at'],
    log_entries_category_time: ['category', 'received_at'],
    log_entries_event_time: ['event_type', 'received_at'],
    log_entries_player_time: ['platform_user_id', 'received_at'],
    log_entries_username_time: ['platform_username', 'received_at'],
    log_entries_code_time: ['code', 'received_at'],
  }
  t.same(await indexes(), searched, 'after: one per search filter, (category, id) and (code, id) gone')
  t.same(new Set(Object.values(SEARCH_INDEXES)), new Set(Object.keys(searched).filter((k) => k.endsWith('_time'))), 'exactly the indexes the search plan names')
  t.same(await db.selectFrom('log_entries').selectAll().orderBy('id').execute(), before, 'every entry kept as it was')

  t.notOk((await migrator.migrateTo('0006-push-targets')).error, 'down')
  t.same(await indexes(), earlier, 'down puts the earlier indexes back')
  t.notOk((await migrator.migrateToLatest()).error, 'and up again')
  t.same(await indexes(), searched)
})
