/**
 * What kind of failure a job attempt ended with, and how long to wait before the next attempt. Pure: the error is
 * only read (name, code, errno, message, cause), and randomness comes in as an argument.
 *
 * - `permanent`: the payload can never succeed (BullMQ's UnrecoverableError, our PermanentFailure): fail at once.
 * - `infrastructure`: MySQL, Redis or the network is unreachable, overloaded or refused the statement for a reason
 *   that is not the payload's (deadlock, lock wait timeout, too many connections, server gone away, read only...):
 *   retry without limit, with capped backoff, so nothing accepted is parked while a dependency is down.
 * - `unknown`: anything else, most likely a bug: retried a bounded number of times, then failed (and re-driven by
 *   `presence-link jobs redrive` once fixed).
 */

/** The three kinds of job failure. */
export type FailureKind = 'permanent' | 'infrastructure' | 'unknown'

/** Error names that mean the payload can never succeed. */
const PERMANENT_NAMES = new Set(['UnrecoverableError', 'PermanentFailure'])

/**
 * MySQL/MariaDB server errors that are not the statement's fault: lock conflicts, connection limits, shutdown,
 * read-only (a failover in progress), access refused (grants being changed), network errors between client and server.
 */
const MYSQL_INFRASTRUCTURE_ERRNOS = new Set([
  1040, // ER_CON_COUNT_ERROR: too many connections
  1041, // ER_OUT_OF_RESOURCES
  1044, // ER_DBACCESS_DENIED_ERROR
  1045, // ER_ACCESS_DENIED_ERROR
  1053, // ER_SERVER_SHUTDOWN
  1077, // ER_NORMAL_SHUTDOWN
  1078, // ER_GOT_SIGNAL
  1079, // ER_SHUTDOWN_COMPLETE
  1080, // ER_FORCING_CLOSE
  1129, // ER_HOST_IS_BLOCKED
  1130, // ER_HOST_NOT_PRIVILEGED
  1135, // ER_CANT_CREATE_THREAD
  1142, // ER_TABLEACCESS_DENIED_ERROR
  1152, // ER_ABORTING_CONNECTION
  1154, // ER_NET_READ_ERROR_FROM_PIPE
  1155, // ER_NET_FCNTL_ERROR
  1156, // ER_NET_PACKETS_OUT_OF_ORDER
  1157, // ER_NET_UNCOMPRESS_ERROR
  1158, // ER_NET_READ_ERROR
  1159, // ER_NET_READ_INTERRUPTED
  1160, // ER_NET_ERROR_ON_WRITE
  1161, // ER_NET_WRITE_INTERRUPTED
  1203, // ER_TOO_MANY_USER_CONNECTIONS
  1205, // ER_LOCK_WAIT_TIMEOUT
  1206, // ER_LOCK_TABLE_FULL
  1213, // ER_LOCK_DEADLOCK
  1223, // ER_CANT_UPDATE_WITH_READLOCK
  1290, // ER_OPTION_PREVENTS_STATEMENT (read only)
  1317, // ER_QUERY_INTERRUPTED
  1836, // ER_READ_ONLY_MODE
  1927, // ER_CONNECTION_KILLED (MariaDB)
  1969, // ER_STATEMENT_TIMEOUT (MariaDB max_statement_time)
  2002, // CR_CONNECTION_ERROR
  2003, // CR_CONN_HOST_ERROR
  2006, // CR_SERVER_GONE_ERROR
  2013, // CR_SERVER_LOST
  3024, // ER_QUERY_TIMEOUT (MySQL max_execution_time)
  4031, // ER_CLIENT_INTERACTION_TIMEOUT (MySQL 8)
])

/** Error codes (Node system errors, mysql2 protocol errors, undici) that mean the connection, not the data, failed. */
const INFRASTRUCTURE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
  'PROTOCOL_ENQUEUE_HANDSHAKE_TWICE',
  'ER_CON_COUNT_ERROR',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
])

/**
 * Error names of clients that lost their server (ioredis) or timed out (fetch, AbortSignal.timeout), and of a write
 * no replica confirmed in time (src/redis/replica-wait.ts).
 */
const INFRASTRUCTURE_NAMES = new Set(['MaxRetriesPerRequestError', 'TimeoutError', 'AbortError', 'ConnectionTimeoutError', 'ReplicaShortfallError'])

/** Messages of infrastructure errors that carry no code: ioredis, mysql2's pool, Redis replies during a failover or load. */
const INFRASTRUCTURE_MESSAGES = [
  /^Connection is closed\b/,
  /^Stream isn't writeable/,
  /^Pool is closed\b/,
  /^Queue limit reached\b/,
  // NOREPLICAS: a primary with min-replicas-to-write that has no replica in sync refuses the write (issue 22).
  /^(?:LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY|OOM|NOREPLICAS)\b/,
  /^Reached the max retries per request limit\b/,
  // Galera: a node outside the primary component (cut off, or still joining) refuses every statement with errno 1047
  // (ER_UNKNOWN_COM_ERROR, which otherwise means a client bug), so the message decides, not the number.
  /^WSREP has not yet prepared node for application use\b/,
  /^fetch failed$/,
  /^connect (?:ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH)\b/,
]

// Causes are followed this deep: a chain longer than this is not something a client library builds.
const MAX_DEPTH = 5

/** Classifies a job failure. */
export function failureKind(err: unknown): FailureKind {
  if (isPermanent(err)) return 'permanent'
  return isInfrastructure(err, 0) ? 'infrastructure' : 'unknown'
}

function field(err: unknown, key: string): unknown {
  return typeof err === 'object' && err !== null ? (err as Record<string, unknown>)[key] : undefined
}

function isPermanent(err: unknown): boolean {
  const name = field(err, 'name')
  return typeof name === 'string' && PERMANENT_NAMES.has(name)
}

function isInfrastructure(err: unknown, depth: number): boolean {
  if (typeof err !== 'object' || err === null || depth > MAX_DEPTH) return false
  const code = field(err, 'code')
  if (typeof code === 'string' && INFRASTRUCTURE_CODES.has(code)) return true
  const errno = field(err, 'errno')
  // mysql2 puts the server's error number in errno; Node system errors put a negative number there (matched by code).
  if (typeof errno === 'number' && MYSQL_INFRASTRUCTURE_ERRNOS.has(errno)) return true
  const name = field(err, 'name')
  if (typeof name === 'string' && INFRASTRUCTURE_NAMES.has(name)) return true
  const message = field(err, 'message')
  if (typeof message === 'string' && INFRASTRUCTURE_MESSAGES.some((re) => re.test(message))) return true
  // Node's happy-eyeballs connect and Promise.any wrap each address's error in an AggregateError.
  const errors = field(err, 'errors')
  if (Array.isArray(errors) && errors.length > 0 && errors.every((e) => isInfrastructure(e, depth + 1))) return true
  return isInfrastructure(field(err, 'cause'), depth + 1)
}

/** How a failed attempt is retried. */
export interface RetryPolicy {
  /** Delay after the first failed attempt, in ms; it doubles with each further attempt. */
  baseDelayMs: number
  /** The delay never grows past this, in ms. */
  maxDelayMs: number
  /** Attempts (of any kind) after which an `unknown` failure fails the job for good. */
  unknownAttempts: number
  /** Spread of the delay: each delay is drawn from [delay × (1 − jitter), delay]; 0 draws nothing. */
  jitter: number
}

/**
 * The service's retry policy: 0.5 s, 1 s, 2 s, 4 s, 8 s, then every 10 s (minus up to 20 % jitter) for as long as
 * the infrastructure is down; an unknown error fails the job after its 8th attempt (about 35 s).
 */
export const RETRY_POLICY: RetryPolicy = Object.freeze({ baseDelayMs: 500, maxDelayMs: 10_000, unknownAttempts: 8, jitter: 0.2 })

/**
 * The delay before the next attempt after attempt number `attempt` (1-based) failed with `kind`, or null when the
 * job must fail now. `random` is a number in [0, 1).
 */
export function retryDelay(kind: FailureKind, attempt: number, policy: RetryPolicy, random: number): number | null {
  if (kind === 'permanent') return null
  if (kind === 'unknown' && attempt >= policy.unknownAttempts) return null
  const exponent = Math.min(Math.max(attempt, 1) - 1, 30)
  const delay = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent)
  return Math.max(1, Math.round(delay * (1 - policy.jitter * random)))
}
