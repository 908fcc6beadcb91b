/**
 * A MySQL connection lost under a statement (the server closed it, reset it, or a Galera node was not yet ready for
 * clients): worth trying again once the server settles, unlike a refused login or a bad statement. Pure.
 */

/** mysql2 and Node error codes of a connection that was made and then lost. */
const LOST_CODES = new Set(['PROTOCOL_CONNECTION_LOST', 'ECONNRESET', 'EPIPE', 'PROTOCOL_SEQUENCE_TIMEOUT'])

/** Messages of a server that answered but is not ready for clients yet (a Galera node still joining). */
const NOT_READY = /^WSREP has not yet prepared node for application use\b/

/** True when `err` (or an error it wraps, a few causes deep) is a lost connection. */
export function isLostConnection(err: unknown): boolean {
  let seen: unknown = err
  for (let depth = 0; depth < 5 && typeof seen === 'object' && seen !== null; depth++) {
    const { code, message, cause } = seen as { code?: unknown; message?: unknown; cause?: unknown }
    if (typeof code === 'string' && LOST_CODES.has(code)) return true
    if (typeof message === 'string' && NOT_READY.test(message)) return true
    seen = cause
  }
  return false
}
