/**
 * The MySQL/MariaDB connection: the Kysely instance over a mysql2 pool, creating the database when it does not exist
 * yet, a reachability check, and the error numbers the rows files match on.
 */
import { Kysely, MysqlDialect, sql } from 'kysely'
import { createConnection, createPool } from 'mysql2'
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

/** Creates the database named in the URL if it is missing. */
export async function ensureDatabase(url: string): Promise<void> {
  const target = parseDatabaseUrl(url)
  const conn = createConnection({ host: target.host, port: target.port, user: target.user, password: target.password })
  try {
    await conn
      .promise()
      .query(`CREATE DATABASE IF NOT EXISTS \`${target.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
  } finally {
    await conn.promise().end()
  }
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
  })
  return new Kysely<Database>({ dialect: new MysqlDialect({ pool }) })
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

/** True when MySQL answers a trivial query (the front's /readyz). */
export async function mysqlReachable(db: Kysely<Database>): Promise<boolean> {
  try {
    await sql`SELECT 1`.execute(db)
    return true
  } catch {
    return false
  }
}
