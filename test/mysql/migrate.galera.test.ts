/**
 * The migrations on MariaDB Galera (src/mysql/migrate.ts): they run on a Galera node that refuses tables without a
 * primary key and DDL on engines it does not replicate, and every table they make, on plain MariaDB too, is InnoDB
 * with a primary key (what Galera replicates), so a migration that breaks this fails here before it reaches a cluster.
 */
import t from 'tap'
import { sql, type Kysely } from 'kysely'
import { createDatabase, ensureDatabase } from '../../src/mysql/connection.js'
import { migrateToLatest, MIGRATIONS } from '../../src/mysql/migrate.js'
import type { Database } from '../../src/mysql/schema.js'
import { galeraNode } from '../helpers/galera-node.js'
import { unmigratedDatabase } from '../helpers/stack.js'

/** Tables of the database that are not InnoDB or have no primary key, as `name (engine, no primary key)`. */
async function unreplicable(db: Kysely<Database>, database: string): Promise<string[]> {
  const rows = await sql<{ name: string; engine: string; pk: number }>`
    SELECT t.TABLE_NAME AS name, t.ENGINE AS engine,
      (SELECT COUNT(*) FROM information_schema.TABLE_CONSTRAINTS c
        WHERE c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME AND c.CONSTRAINT_TYPE = 'PRIMARY KEY') AS pk
    FROM information_schema.TABLES t WHERE t.TABLE_SCHEMA = ${database} AND t.TABLE_TYPE = 'BASE TABLE'`.execute(db)
  return rows.rows.filter((r) => r.engine !== 'InnoDB' || Number(r.pk) === 0).map((r) => `${r.name} (${r.engine}${Number(r.pk) === 0 ? ', no primary key' : ''})`)
}

t.test('every table the migrations make is InnoDB with a primary key (plain MariaDB)', async (t) => {
  const { db, config } = await unmigratedDatabase(t)
  await migrateToLatest(db)
  const database = new URL(config.databaseUrl).pathname.slice(1)
  t.same(await unreplicable(db, database), [])
})

t.test('on a Galera node the migrations run to the latest, and the node stays Synced', async (t) => {
  const node = await galeraNode(t)
  const url = node.url('presence_link')
  await ensureDatabase(url)
  const db = createDatabase(url, 2)
  t.teardown(() => db.destroy())
  // The node is strict: a table without a primary key is refused, so the migrations below prove theirs.
  t.throws(() => node.query('CREATE TABLE presence_link.no_pk (a INT) ENGINE=InnoDB; INSERT INTO presence_link.no_pk VALUES (1)'), /ERROR 4165|Galera replication not supported/)
  node.query('DROP TABLE IF EXISTS presence_link.no_pk')
  const result = await migrateToLatest(db)
  t.same(result.results?.map((r) => [r.migrationName, r.status]), Object.keys(MIGRATIONS).map((m) => [m, 'Success']))
  t.same(await unreplicable(db, 'presence_link'), [])
  t.equal((await migrateToLatest(db)).results?.length, 0, 'a second run has nothing to do')
  t.equal(node.query("SHOW STATUS LIKE 'wsrep_local_state_comment'"), 'wsrep_local_state_comment\tSynced')
  await sql`INSERT INTO codes (code, chat_user_id) VALUES ('AB12', '1')`.execute(db)
  t.equal(node.query("SELECT chat_user_id FROM presence_link.codes WHERE code = 'AB12'"), '1')
})
