/**
 * The error line of an administration command that could not reach its storage, naming the variable to check: an
 * operator at a prompt should not have to guess which setting `127.0.0.1:3306` came from. Pure: words the line.
 */

/** Node and mysql2 error codes of a MySQL connection or login that failed (not of a query the server refused). */
const MYSQL_CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ECONNRESET',
  'EHOSTUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'ER_ACCESS_DENIED_ERROR',
  'ER_DBACCESS_DENIED_ERROR',
  'ER_BAD_DB_ERROR',
])

/** What `presence-link` prints for a command that threw `err`: `error: MESSAGE`, with the variable when storage failed. */
export function commandErrorLine(err: unknown): string {
  const message = err instanceof Error ? err.message || err.name : String(err)
  if (message.includes('REDIS_URL') || message.includes('REDIS_SENTINELS') || message.includes('DATABASE_URL')) return `error: ${message}`
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined
  const mysql = message.startsWith('cannot open MySQL at ') || (typeof code === 'string' && MYSQL_CONNECTION_CODES.has(code))
  return mysql ? `error: ${message.startsWith('cannot open MySQL') ? message : `cannot reach MySQL (${message})`}; check DATABASE_URL` : `error: ${message}`
}
