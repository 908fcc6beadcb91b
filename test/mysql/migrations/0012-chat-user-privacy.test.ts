/**
 * Migration 0012 on a table that holds codes: every existing code gets `everything` (today's behaviour) and no
 * `left_at`, the other settings are storable, anything else is refused; down drops both columns and up works again.
 */
import { sql } from 'kysely'
import t from 'tap'
import { createMigrator } from '../../../src/mysql/migrate.js'
import { unmigratedDatabase } from '../../helpers/stack.js'

t.test('migration 0012', async (t) => {
  const { db } = await unmigratedDatabase(t)
  const migrator = createMigrator(db)
  t.notOk((await migrator.migrateTo('0010-delivery-digest')).error)
  await sql`INSERT INTO codes (code, chat_user_id) VALUES ('AAAA', '1'), ('BBBB', '2')`.execute(db)

  t.notOk((await migrator.migrateTo('0012-chat-user-privacy')).error, 'up')
  const read = () => sql<{ code: string; share: string }>`SELECT code, share FROM codes ORDER BY code`.execute(db).then((r) => r.rows)
  t.same(await read(), [{ code: 'AAAA', share: 'everything' }, { code: 'BBBB', share: 'everything' }], 'existing codes show everything')
  const { rows: left } = await sql<{ left_at: Date | null }>`SELECT left_at FROM codes`.execute(db)
  t.same(left, [{ left_at: null }, { left_at: null }], 'nobody has left')
  for (const share of ['games', 'media', 'nothing']) await sql`UPDATE codes SET share = ${share} WHERE code = 'AAAA'`.execute(db)
  t.same((await read())[0], { code: 'AAAA', share: 'nothing' })
  await t.rejects(sql`UPDATE codes SET share = 'music' WHERE code = 'AAAA'`.execute(db), 'an unknown setting is refused (strict mode)')

  t.notOk((await migrator.migrateTo('0010-delivery-digest')).error, 'down')
  const { rows } = await sql<{ Field: string }>`SHOW COLUMNS FROM codes WHERE Field IN ('share', 'left_at')`.execute(db)
  t.same(rows, [], 'share and left_at dropped')
  t.notOk((await migrator.migrateToLatest()).error, 'and up again')
})
