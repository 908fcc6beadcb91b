/**
 * An online ALTER (src/mysql/online-alter.ts) on real MariaDB: behind a transaction that holds the table it waits a
 * bounded time per try and gives up with the reason, instead of queueing the service's writes behind it for good; it
 * goes through once the table is free; its session setting is put back; other errors pass through at once.
 */
import { sql } from 'kysely'
import t from 'tap'
import { alterOnline } from '../../src/mysql/online-alter.js'
import { eventually, startStack } from '../helpers/stack.js'

const QUICK = { lockWaitSeconds: 1, attempts: 2, pauseMs: 50 }

t.test('online alter', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const db = stack.db
  const addKey = sql`ALTER TABLE log_entries ADD KEY online_alter_probe (source), ALGORITHM = INPLACE, LOCK = NONE`
  const keys = async () => (await sql<{ Key_name: string }>`SHOW INDEX FROM log_entries`.execute(db)).rows.map((r) => r.Key_name)

  t.test('behind a transaction that holds the table: bounded waits, then the reason; the session setting is restored', async (t) => {
    await db.connection().execute(async (holder) => {
      await sql`START TRANSACTION`.execute(holder)
      await sql`SELECT COUNT(*) FROM log_entries`.execute(holder)
      try {
        await db.connection().execute(async (conn) => {
          await sql`SET SESSION lock_wait_timeout = 77`.execute(conn)
          await t.rejects(alterOnline(conn, 'log_entries', addKey, QUICK), {
            message: 'log_entries stayed in use by another transaction (a backup, a long query?) through 2 waits of 1 s: run `presence-link migrate` again once it is done',
          })
          const { rows } = await sql<{ wait: string | number }>`SELECT @@SESSION.lock_wait_timeout AS wait`.execute(conn)
          t.equal(Number(rows[0]!.wait), 77, 'lock_wait_timeout is back to what the session had')
        })
      } finally {
        await sql`COMMIT`.execute(holder)
      }
    })
    t.notOk((await keys()).includes('online_alter_probe'), 'nothing changed')
    await sql`INSERT INTO log_entries (dedupe_key, category, event_type, description, source, received_at) VALUES ('after-wait', 'server', 'boot', 'stored', 'test', NOW(3))`.execute(db)
  })

  t.test('a table that comes free during a wait is altered', async (t) => {
    await db.connection().execute(async (holder) => {
      await sql`START TRANSACTION`.execute(holder)
      await sql`SELECT COUNT(*) FROM log_entries`.execute(holder)
      const altered = alterOnline(db, 'log_entries', addKey, { lockWaitSeconds: 5, attempts: 10, pauseMs: 50 })
      // Let go once the ALTER is seen waiting for the table.
      await eventually(
        async () => {
          const { rows } = await sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'ALTER TABLE log_entries ADD KEY online_alter_probe%' AND STATE LIKE 'Waiting for table metadata lock%'`.execute(db)
          return Number(rows[0]!.n) > 0 ? true : undefined
        },
        40_000,
        'the ALTER waiting for the table',
      )
      await sql`COMMIT`.execute(holder)
      await altered
    })
    t.ok((await keys()).includes('online_alter_probe'))
  })

  t.test('any other error passes through at the first try', async (t) => {
    await t.rejects(alterOnline(db, 'log_entries', addKey, QUICK), { errno: 1061, message: /Duplicate key name 'online_alter_probe'/ })
    await sql`ALTER TABLE log_entries DROP KEY online_alter_probe`.execute(db)
  })
})
