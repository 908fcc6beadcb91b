/** Classifying job failures and the retry delays that follow. */
import t from 'tap'
import { failureKind, retryDelay, RETRY_POLICY, type FailureKind } from '../../../src/queue/model/failure-kind.js'

const withFields = (message: string, fields: Record<string, unknown>): Error => Object.assign(new Error(message), fields)
const named = (name: string, message = name): Error => Object.assign(new Error(message), { name })

t.test('failureKind', async (t) => {
  const cases: Array<[string, unknown, FailureKind]> = [
    ['UnrecoverableError (an invalid payload)', named('UnrecoverableError', 'invalid log job: bad'), 'permanent'],
    ['PermanentFailure', named('PermanentFailure'), 'permanent'],
    ['connection refused (mysql2)', withFields('connect ECONNREFUSED 127.0.0.1:3306', { code: 'ECONNREFUSED', errno: -111, fatal: true }), 'infrastructure'],
    ['connection lost (mysql2)', withFields('Connection lost: The server closed the connection.', { code: 'PROTOCOL_CONNECTION_LOST', fatal: true }), 'infrastructure'],
    ['deadlock', withFields('Deadlock found when trying to get lock', { code: 'ER_LOCK_DEADLOCK', errno: 1213 }), 'infrastructure'],
    ['lock wait timeout', withFields('Lock wait timeout exceeded', { code: 'ER_LOCK_WAIT_TIMEOUT', errno: 1205 }), 'infrastructure'],
    ['too many connections', withFields('Too many connections', { code: 'ER_CON_COUNT_ERROR', errno: 1040 }), 'infrastructure'],
    ['server gone away', withFields('MySQL server has gone away', { errno: 2006 }), 'infrastructure'],
    ['server shutdown', withFields('Server shutdown in progress', { code: 'ER_SERVER_SHUTDOWN', errno: 1053 }), 'infrastructure'],
    ['Galera node outside the primary component', withFields('WSREP has not yet prepared node for application use', { code: 'ER_UNKNOWN_COM_ERROR', errno: 1047 }), 'infrastructure'],
    ['unknown command (not Galera): a bug', withFields('Unknown command', { code: 'ER_UNKNOWN_COM_ERROR', errno: 1047 }), 'unknown'],
    ['read only (a failover)', withFields('The MariaDB server is running with the --read-only option', { errno: 1290 }), 'infrastructure'],
    ['ioredis connection closed', new Error('Connection is closed.'), 'infrastructure'],
    ['ioredis offline queue off', new Error("Stream isn't writeable and enableOfflineQueue options is false"), 'infrastructure'],
    ['ioredis retries exhausted', named('MaxRetriesPerRequestError', 'Reached the max retries per request limit (which is 20).'), 'infrastructure'],
    ['Redis loading', named('ReplyError', 'LOADING Redis is loading the dataset in memory'), 'infrastructure'],
    ['Redis primary without a replica in sync (min-replicas-to-write)', named('ReplyError', 'NOREPLICAS Not enough good replicas to write.'), 'infrastructure'],
    ['a write no replica confirmed in time', named('ReplicaShortfallError', 'only 0 of 1 Redis replicas confirmed the write within 1000 ms'), 'infrastructure'],
    ['fetch failed, refused', Object.assign(new TypeError('fetch failed'), { cause: withFields('connect ECONNREFUSED', { code: 'ECONNREFUSED' }) }), 'infrastructure'],
    ['happy eyeballs AggregateError', new AggregateError([withFields('a', { code: 'ECONNREFUSED' }), withFields('b', { code: 'ETIMEDOUT' })], ''), 'infrastructure'],
    ['fetch timeout', named('TimeoutError', 'The operation was aborted due to timeout'), 'infrastructure'],
    ['pool closed while shutting down', new Error('Pool is closed.'), 'infrastructure'],
    ['missing table (a bug or a bad migration)', withFields("Table 'pl.log_entries' doesn't exist", { code: 'ER_NO_SUCH_TABLE', errno: 1146 }), 'unknown'],
    ['duplicate entry outside the dedupe', withFields('Duplicate entry', { code: 'ER_DUP_ENTRY', errno: 1062 }), 'unknown'],
    ['a TypeError (a bug)', new TypeError("Cannot read properties of undefined (reading 'x')"), 'unknown'],
    ['a thrown string', 'oops', 'unknown'],
    ['null', null, 'unknown'],
    ['a cause chain that loops', (() => { const e = new Error('loop') as Error & { cause?: unknown }; e.cause = e; return e })(), 'unknown'],
    ['a 4,000-character message', new Error('x'.repeat(4000)), 'unknown'],
  ]
  for (const [what, err, kind] of cases) t.equal(failureKind(err), kind, what)
})

t.test('retryDelay', async (t) => {
  t.test('infrastructure: 0.5 s doubling to a 10 s cap, for ever', async (t) => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8, 50, 10_000].map((n) => retryDelay('infrastructure', n, { ...RETRY_POLICY, jitter: 0 }, 0))
    t.same(delays, [500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000, 10_000, 10_000])
  })
  t.test('jitter shortens a delay by at most its share', async (t) => {
    t.equal(retryDelay('infrastructure', 6, RETRY_POLICY, 0), 10_000)
    t.equal(retryDelay('infrastructure', 6, RETRY_POLICY, 0.999999), 8000)
  })
  t.test('unknown: retried until the 8th attempt, then failed', async (t) => {
    t.equal(retryDelay('unknown', 7, { ...RETRY_POLICY, jitter: 0 }, 0), 10_000)
    t.equal(retryDelay('unknown', 8, RETRY_POLICY, 0), null)
  })
  t.test('permanent: failed at once', async (t) => {
    t.equal(retryDelay('permanent', 1, RETRY_POLICY, 0), null)
  })
})
