/**
 * Runs an `ALTER TABLE ... ALGORITHM=INPLACE, LOCK=NONE` on a table the running service writes to, for migrations.
 * Such an ALTER lets reads and writes go on while it builds, but it takes the table's metadata lock briefly at its
 * start and end, and while it waits for that lock (behind a long transaction: a backup, a slow query) every new
 * statement on the table queues behind it. So it waits a few seconds at most (lock_wait_timeout), then lets the
 * table go for a pause and tries again, and gives up with the reason after a bounded number of tries. Its session
 * setting is put back afterwards: the migrations share one connection.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { hasErrno, MysqlErrno } from './connection.js'

/** How an online ALTER waits for its table. */
export interface OnlineAlterOptions {
  /** Longest wait for the table's metadata lock per try (seconds): how long writes may queue behind the ALTER. */
  lockWaitSeconds: number
  /** Tries before giving up. */
  attempts: number
  /** Pause between tries (ms), while the table is left to the service. */
  pauseMs: number
}

/** Five-second waits, twelve tries, five seconds apart: about two minutes before giving up. */
export const ONLINE_ALTER_DEFAULTS: OnlineAlterOptions = { lockWaitSeconds: 5, attempts: 12, pauseMs: 5000 }

// ER_INNODB_ONLINE_LOG_TOO_BIG: the writes made during the build outgrew the log InnoDB keeps of them.
const ONLINE_LOG_TOO_BIG = 1799

/** Runs `statement` (an online ALTER of `table`) as the header says; throws with what to do when it cannot. */
export async function alterOnline(db: Kysely<any>, table: string, statement: RawBuilder<unknown>, options: OnlineAlterOptions = ONLINE_ALTER_DEFAULTS): Promise<void> {
  const { rows } = await sql<{ wait: number | string }>`SELECT @@SESSION.lock_wait_timeout AS wait`.execute(db)
  const previous = Number(rows[0]!.wait)
  await sql`SET SESSION lock_wait_timeout = ${sql.lit(options.lockWaitSeconds)}`.execute(db)
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await statement.execute(db)
        return
      } catch (err) {
        if (hasErrno(err, ONLINE_LOG_TOO_BIG)) {
          throw new Error(
            `${table} took more writes during the index build than innodb_online_alter_log_max_size holds: raise it (SET GLOBAL innodb_online_alter_log_max_size = ...) or migrate in a quieter hour`,
            { cause: err },
          )
        }
        if (!hasErrno(err, MysqlErrno.LockWaitTimeout)) throw err
        if (attempt >= options.attempts) {
          throw new Error(
            `${table} stayed in use by another transaction (a backup, a long query?) through ${options.attempts} waits of ${options.lockWaitSeconds} s: run \`presence-link migrate\` again once it is done`,
            { cause: err },
          )
        }
        await new Promise((resolve) => setTimeout(resolve, options.pauseMs))
      }
    }
  } finally {
    await sql`SET SESSION lock_wait_timeout = ${sql.lit(previous)}`.execute(db)
  }
}
