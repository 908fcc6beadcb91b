/**
 * Connections through Sentinel (src/redis/sentinel-connector.ts) on private processes (issue 22, item 1).
 *
 * 1. A failover announced while the connection is reconnecting. The primary is killed: the connection closes and asks
 *    the Sentinels again; here the question is held by a proxy in front of the Sentinel (test/helpers/tcp-proxy.ts)
 *    while the Sentinels promote the replica and publish `+switch-master`. ioredis 6.0.0 keeps the failover detector of the
 *    connection that closed; it disconnects the connector in the middle of its question, the answer is thrown away as
 *    "Connection is closed." and the connection ends for good: every command after it fails, with no reconnect (seen
 *    in clean-clone CI runs as a front answering 503 for 30 s after a failover, and as binds that never recovered in
 *    the data-cut scenario).
 * 2. A Sentinel that accepts connections but never answers (a hung process: SIGSTOP) listed first: ioredis alone
 *    waits for its answer forever.
 */
import t from 'tap'
import { createRedis, waitReady } from '../../src/redis/connection.js'
import { onNode, replicatedRedis } from '../helpers/replicated-redis.js'
import { eventually } from '../helpers/stack.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'

t.test('a failover announced while the connection is asking the Sentinels again', async (t) => {
  const nodes = await replicatedRedis(t, { sentinels: true })
  const proxy = await startTcpProxy('127.0.0.1', nodes.sentinels[0]!.port)
  t.teardown(() => proxy.close())
  const redis = createRedis({ kind: 'sentinel', sentinels: [{ host: '127.0.0.1', port: proxy.port }], name: nodes.name, password: '', sentinelPassword: '' }, 'request', 'sentinel-race')
  const errors: string[] = []
  redis.on('error', (err: Error) => errors.push(err.message))
  t.teardown(() => redis.disconnect())
  await waitReady(redis)
  t.equal(await redis.set('before', '1'), 'OK', 'connected to the primary')

  // The failover detector is subscribed (through the proxy, before it holds new connections) on the Sentinel behind it: the one
  // client there with a subscription (Sentinels talk to each other without one).
  await eventually(async () => {
    const clients = (await onNode(nodes.sentinels[0]!.port, (r) => r.call('CLIENT', 'LIST'))) as string
    return /\bsub=[1-9]/.test(clients) ? true : undefined
  }, 10_000, 'the failover detector subscribed')

  proxy.holdNew()
  await nodes.primary.kill()
  await eventually(async () => ((await nodes.primaryPort()) === nodes.replica.port ? true : undefined), 20_000, 'the Sentinels promoting the replica')
  t.not(redis.status, 'ready', 'the failover was announced while the connection was still waiting for the Sentinel')
  // From now on the Sentinel answers again, the held questions included: questions asked after the announcement get
  // the new primary. (The connection's own questions time out after 1 s meanwhile; one whose Sentinels had not yet
  // learnt of each other when it connected has nobody else to ask.)
  proxy.releaseNew()

  const answers: string[] = []
  const set = await eventually(async () => {
    const answer = await redis.set('after', '1').catch((err: Error) => `${err.message} (status ${redis.status})`)
    answers.push(answer)
    return answer === 'OK' ? answer : undefined
  }, 20_000, 'a write on the new primary').catch((err: Error) => {
    throw new Error(`${err.message}; the connection's answers: ${[...new Set(answers)].join(' | ')}; errors: ${[...new Set(errors)].join(' | ')}`)
  })
  t.equal(set, 'OK', 'the connection reconnected to the new primary by itself')
  t.not(redis.status, 'end')
  t.equal(await onNode(nodes.replica.port, (r) => r.get('after')), '1', 'the write is on the new primary')
})

t.test('a hung Sentinel listed first does not hold the connection', async (t) => {
  const nodes = await replicatedRedis(t, { sentinels: true })
  nodes.sentinels[0]!.freeze()
  t.teardown(() => nodes.sentinels[0]!.thaw())
  const sentinels = nodes.sentinels.map((s) => ({ host: '127.0.0.1', port: s.port }))
  const redis = createRedis({ kind: 'sentinel', sentinels, name: nodes.name, password: '', sentinelPassword: '' }, 'request', 'sentinel-hung')
  redis.on('error', () => undefined)
  t.teardown(() => redis.disconnect())
  await waitReady(redis, 15_000)
  t.equal(await redis.set('through-the-others', '1'), 'OK', 'connected to the primary through the Sentinels that answer')
  t.equal(await onNode(nodes.primary.port, (r) => r.get('through-the-others')), '1')
})
