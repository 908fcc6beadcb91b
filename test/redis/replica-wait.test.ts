/**
 * "Accepted" means on two hosts (issue 22, item 2), through the real front and worker on a private primary with one
 * replica, REDIS_WRITE_REPLICAS=1: while the replica is frozen (SIGSTOP: connected, acknowledging nothing), POST
 * /api/v1/log and POST /api/v1/bind answer 503 with Retry-After and the usual error body, never 200; once it is
 * thawed, the same requests (the log with the same Idempotency-Key) answer 200, and MySQL holds the event and the bind
 * exactly once. The old code answered 200 with the replica frozen (it never asked the replica). And the primary's own
 * guard, min-replicas-to-write: with its replica gone it refuses writes (NOREPLICAS), which the front answers 503.
 */
import t from 'tap'
import { createRedis, waitReady } from '../../src/redis/connection.js'
import { createReplicaWait } from '../../src/redis/replica-wait.js'
import { createSandbox } from '../../src/sandbox/create-sandbox.js'
import { onNode, replicatedRedis } from '../helpers/replicated-redis.js'
import { eventually, postJson, startStack } from '../helpers/stack.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'

const API_KEY = 'replica-wait-test-bootstrap-key-0123456789'
const auth = `Bearer ${API_KEY}`

t.test('with the replica frozen, log and bind answer 503 with Retry-After, never 200; after it is back, a retry stores once', async (t) => {
  const nodes = await replicatedRedis(t)
  const sandbox = await createSandbox({ port: 0 })
  t.teardown(() => sandbox.close())
  const stack = await startStack(t, {
    env: {
      REDIS_URL: nodes.primary.url,
      REDIS_WRITE_REPLICAS: '1',
      REDIS_WRITE_TIMEOUT_MS: '300',
      RATE_LIMITS: 'off',
      API_KEY,
      ROBLOX_USERS_API: sandbox.robloxBase,
    },
  })
  const code = (await stack.codes.issue('300000000000000001')).code.code
  const log = () => postJson(`${stack.api}/log/server`, { event_type: 'replica_wait', description: 'held by two hosts' }, auth, { 'idempotency-key': 'replica-wait-1' })
  const bind = () => postJson(`${stack.api}/bind`, { code, platform_username: 'Two_Hosts', platform_user_id: 4242 }, auth)
  const stored = () =>
    stack.db.selectFrom('log_entries').select(['description']).where('event_type', '=', 'replica_wait').execute()

  t.equal((await postJson(`${stack.api}/log/server`, { event_type: 'warm_up', description: 'replica up' }, auth)).status, 200, 'with the replica up, a log is accepted')

  nodes.replica.freeze()
  const refusedLog = await log()
  t.equal(refusedLog.status, 503, 'the log is not answered 200 while no replica confirms it')
  t.equal(refusedLog.headers.get('retry-after'), '5')
  t.same(refusedLog.body, { detail: { status: 'error', code: 'queue_unavailable', message: 'the service cannot accept this right now; retry shortly' } })
  const refusedBind = await bind()
  t.equal(refusedBind.status, 503, 'the bind is not answered 200 while no replica confirms it')
  t.equal(refusedBind.headers.get('retry-after'), '5')
  t.same(refusedBind.body, { detail: { status: 'error', code: 'queue_unavailable', message: 'the service cannot accept this right now; retry shortly' } })

  nodes.replica.thaw()
  const retriedLog = await log()
  t.equal(retriedLog.status, 200, 'the retry with the same Idempotency-Key is accepted once the replica confirms')
  t.same(retriedLog.body, { status: 'logged', category: 'server' })
  const retriedBind = await bind()
  t.equal(retriedBind.status, 200, 'the bind retried is answered 200')
  t.same(retriedBind.body, { status: 'already_bound', platform_username: 'Two_Hosts' }, 'the first attempt had bound it (in MySQL): the retry says so')
  const rows = await eventually(async () => {
    const found = await stored()
    return found.length > 0 ? found : undefined
  }, 15_000, 'the event stored')
  // Both the refused attempt's batch and the retry's reach the worker; give it time to store a duplicate if it would.
  await eventually(async () => ((await stack.db.selectFrom('log_entries').select('id').where('event_type', '=', 'warm_up').execute()).length === 1 ? true : undefined))
  t.same(rows.map((r) => r.description), ['held by two hosts'], 'MySQL holds the event once')
  const shown = await stack.codes.show(code)
  t.equal(shown?.platformUserId, '4242', 'MySQL holds the bind')
  t.equal(shown?.platformUsername, 'Two_Hosts')
})

t.test('a primary with min-replicas-to-write 1 whose replica is gone refuses writes: 503 with Retry-After, never 200', async (t) => {
  const nodes = await replicatedRedis(t, { primaryArgs: ['--min-replicas-to-write', '1', '--min-replicas-max-lag', '1'] })
  t.test('logs', async (t) => {
    // REDIS_WRITE_REPLICAS=0: the primary's guard alone.
    const stack = await startStack(t, { env: { REDIS_URL: nodes.primary.url, RATE_LIMITS: 'off', API_KEY }, consumers: [] })
    const log = (description: string) => postJson(`${stack.api}/log/server`, { event_type: 'guarded', description }, auth)
    t.equal((await log('replica in sync')).status, 200)
    await nodes.replica.kill()
    // The primary notices the replica gone within min-replicas-max-lag (1 s) plus its once-a-second check.
    const refused = await eventually(async () => {
      const res = await log('replica gone')
      return res.status === 200 ? undefined : res
    }, 15_000, 'the primary refusing writes')
    t.equal(refused.status, 503)
    t.equal(refused.headers.get('retry-after'), '5')
    t.same(refused.body, { detail: { status: 'error', code: 'queue_unavailable', message: 'the service cannot accept this right now; retry shortly' } })
    t.equal((await log('still gone')).status, 503, 'and again: no write is accepted by the lone primary')
    // Lift the guard, so that the stack's cleanup can delete its keys.
    await onNode(nodes.primary.port, (r) => r.config('SET', 'min-replicas-to-write', '0'))
  })
})

t.test('a connection re-made between the write and its WAIT confirms nothing (the WAIT would run on another primary)', async (t) => {
  // Two primaries, each with a replica, behind one address (a proxy the test switches), as a failover moves a
  // connection: the write goes to the old primary, whose replica has stopped acknowledging (cut off with it); the
  // connection is lost and made again, now to the new primary, whose replica acknowledges at once.
  const [oldSide, newSide] = [await replicatedRedis(t), await replicatedRedis(t)]
  const proxy = await startTcpProxy('127.0.0.1', oldSide.primary.port)
  t.teardown(() => proxy.close())
  const conn = createRedis(`redis://127.0.0.1:${proxy.port}`, 'worker', 'replica-wait-remade')
  t.teardown(() => conn.disconnect())
  await waitReady(conn)
  const wait = createReplicaWait(conn, 'replica-wait-test:mark', { replicas: 1, timeoutMs: 500 })

  const first = wait.own('log')
  await conn.set('replica-wait-test:first', '1')
  await first()
  t.pass('the control: on one socket, a write the replica acknowledged is confirmed')

  oldSide.replica.freeze()
  t.teardown(() => oldSide.replica.thaw())
  const second = wait.own('log')
  await conn.set('replica-wait-test:second', '1')
  proxy.retarget(newSide.primary.port)
  const ready = new Promise((resolve) => conn.once('ready', resolve))
  proxy.cut()
  proxy.restore()
  await ready
  t.equal(await conn.wait(1, 500), 1, 'a WAIT on the new socket alone is satisfied by the new primary\'s replica')
  t.equal(await onNode(newSide.primary.port, (r) => r.get('replica-wait-test:second')), null, 'which never had the write')
  await t.rejects(second(), { name: 'ReplicaShortfallError', message: /re-made between the write and its confirmation/ }, 'the confirmation begun before the write is refused (a 503 for the client)')
})
