/**
 * Backups of the service's database (`presence-link backup`, `restore`): the file's name, the arguments of the
 * MariaDB client programs, and the line that proves a dump complete. Pure: no I/O.
 */

/** The end of the file name of every backup: a gzip of the SQL mariadb-dump wrote. */
export const BACKUP_SUFFIX = '.sql.gz'

/** What a complete dump ends with (mariadb-dump writes it last, unless --skip-comments). */
export const DUMP_COMPLETED = '-- Dump completed'

/**
 * The versions of `codes` and `api_keys` jump by this much after a restore (2^32): more than any row changes in its
 * life, so every restored row is newer than any Redis copy written before the restore, and the reconciler rewrites
 * each copy from MySQL (its compare-and-set keeps a copy that looks newer than its row).
 */
export const RESTORE_VERSION_JUMP = 4_294_967_296

/** Where a database is, as the client programs take it. */
export interface DumpTarget {
  host: string
  port: number
  user: string
  password: string
  database: string
}

/** `presence-link-DB-20261128T172000Z.sql.gz`: sortable by time, named after the database it holds. */
export function backupFileName(database: string, at: Date): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z')
  return `presence-link-${database}-${stamp}${BACKUP_SUFFIX}`
}

/**
 * The connection arguments of mariadb-dump and mariadb; the password goes in the environment (MYSQL_PWD), never on a
 * command line other users of the machine can read.
 */
export function clientConnection(target: DumpTarget): { args: string[]; env: Record<string, string> } {
  // A host of `localhost` would make the client use a Unix socket; the service connects over TCP, so does the client.
  return {
    args: [`--host=${target.host}`, `--port=${target.port}`, `--user=${target.user}`, '--protocol=TCP', '--default-character-set=utf8mb4'],
    env: target.password === '' ? {} : { MYSQL_PWD: target.password },
  }
}

/**
 * mariadb-dump's arguments for a consistent dump of one database: one transaction (InnoDB's snapshot, no table
 * locks: the service keeps writing), rows read one at a time (--quick), binary as hex, no tablespaces (needs the
 * PROCESS privilege the service's user lacks on MySQL 8). Without --databases the dump names no database, so it
 * restores into any.
 */
export function dumpArgs(target: DumpTarget): string[] {
  return [...clientConnection(target).args, '--single-transaction', '--quick', '--hex-blob', '--no-tablespaces', '--triggers', target.database]
}

/** Whether the last non-empty line of a dump says it completed. */
export function dumpComplete(lastLine: string): boolean {
  return lastLine.startsWith(DUMP_COMPLETED)
}
