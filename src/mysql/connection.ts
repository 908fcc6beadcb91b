/**
 * The MySQL/MariaDB connection: the Kysely instance over a mysql2 pool, creating the database when it does not exist
 * yet, a reachability check, the one-line reason of a failed connection, and the error numbers the rows files match on.
 */
import { Kysely, MysqlDialect, sql } from 'kysely'
import { createConnection, createPool, format } from 'mysql2'
import type { DependencyCheck } from '../health/readiness.js'
import type { Database } from './schema.js'

/** Connection settings parsed from DATABASE_URL. */
export interface DatabaseTarget {
  host: string
  port: number
  user: string
  password: string
  database: string
}

/** Parses `mysql://user:pass@host:port/db` (pure). */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  const u = new URL(url)
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''))
  if (!/^[A-Za-z0-9_]{1,64}$/.test(database)) {
    throw new Error('DATABASE_URL must name a database of 1-64 letters, digits or _')
  }
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port === '' ? 3306 : Number(u.port),
    user: decodeURIComponent(u.username || 'root'),
    password: decodeURIComponent(u.password),
    database,
  }
}

/**
 * The server's reason for a failed connection or query, on one line: `Access denied for user 'root'@'localhost'
 * (using password: YES)`, `connect ECONNREFUSED 127.0.0.1:3306`. Node reports a refused `localhost` (tried on ::1
 * and 127.0.0.1) as an AggregateError without a message: its attempts are listed instead.
 */
export function mysqlErrorReason(err: unknown): string {
  if (err instanceof AggregateError && err.message === '' && err.errors.length > 0) return [...new Set(err.errors.map(mysqlErrorReason))].join('; ')
  if (err instanceof Error) return (err.message || ((err as { code?: unknown }).code as string | undefined) || err.name).split('\n')[0]!
  return String(err)
}

/**
 * Creates the database named in the URL if it is missing. A failed login or connection rejects with the server's
 * reason (`cannot open MySQL at HOST:PORT: Access denied for user ...`), keeping the error's `code` and `errno`.
 */
export async function ensureDatabase(url: string): Promise<void> {
  const target = parseDatabaseUrl(url)
  const conn = createConnection({ host: target.host, port: target.port, user: target.user, password: target.password })
  try {
    await conn
      .promise()
      .query(`CREATE DATABASE IF NOT EXISTS \`${target.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
  } catch (err) {
    // After a failed login mysql2 queues end()'s QUIT on a connection that will never run it: end() never settles
    // (the CLI then died with Node's "unsettled top-level await", exit 13, and parts waited silently forever).
    conn.destroy()
    const { code, errno } = err as { code?: unknown; errno?: unknown }
    throw Object.assign(new Error(`cannot open MySQL at ${target.host}:${target.port}: ${mysqlErrorReason(err)}`, { cause: err }), { code, errno })
  }
  await conn.promise().end()
}

/** Creates the Kysely instance; `poolSize` bounds connections per process. */
export function createDatabase(url: string, poolSize = 10): Kysely<Database> {
  const target = parseDatabaseUrl(url)
  const pool = createPool({
    ...target,
    connectionLimit: poolSize,
    // Times are stored and read as UTC; mysql2 otherwise uses the process's local zone.
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: true,
    charset: 'utf8mb4_unicode_ci',
    enableKeepAlive: true,
    queryFormat: formatQuery,
  })
  return new Kysely<Database>({ dialect: new MysqlDialect({ pool }) })
}

/**
 * mysql2's own formatting, except that a statement without values is sent as it is: mysql2 would scan all of its text
 * for placeholders first, about a microsecond per row of a group's hand-written INSERT (log-entry-rows.ts), for
 * nothing. Times are written in UTC, as the pool reads them.
 */
function formatQuery(this: unknown, query: string, values: unknown): string {
  return values === undefined || (Array.isArray(values) && values.length === 0) ? query : format(query, values as Parameters<typeof format>[1], false, 'Z')
}

/** MySQL/MariaDB error numbers the code matches on. */
export const MysqlErrno = {
  DuplicateEntry: 1062,
  LockDeadlock: 1213,
  LockWaitTimeout: 1205,
} as const

/** True when `err` is a MySQL error with that errno. */
export function hasErrno(err: unknown, errno: number): boolean {
  return typeof err === 'object' && err !== null && (err as { errno?: unknown }).errno === errno
}

/** Resolves when MySQL answers a trivial query (the readiness checks); rejects with the server's reason (mysqlErrorReason) when not. */
export async function mysqlAnswers(db: Kysely<Database>): Promise<void> {
  try {
    await sql`SELECT 1`.execute(db)
  } catch (err) {
    throw new Error(mysqlErrorReason(err), { cause: err })
  }
}

/** MySQL answers `SELECT 1` on `db`; the reason of a failure is the server's (`Access denied for user ...`). */
export function mysqlCheck(db: Kysely<Database>): DependencyCheck {
  return async () => {
    await mysqlAnswers(db)
    return true
  }
}
