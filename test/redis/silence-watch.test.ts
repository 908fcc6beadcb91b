/**
 * The silence watch (src/redis/silence-watch.ts) against the real Redis behind a proxy that can stall like a cut
 * network path: a silent connection is noticed, torn down and re-made, and works again once the path heals.
 */
import t from 'tap'
import { createRedis } from '../../src/redis/connection.js'
import { reconnectWhenSilent } from '../../src/redis/silence-watch.js'
import { eventually } from '../helpers/stack.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'

/** A ready connection through a stallable proxy, watched with a 100 ms probe and 500 ms of silence; the silences seen. */
async function watched(t: { teardown(fn: () => unknown): void }) {
  const proxy = await startTcpProxy('127.0.0.1', 6379)
  t.teardown(() => proxy.close())
  const redis = createRedis(`redis://127.0.0.1:${proxy.port}`, 'request', `silence-test-${process.pid}`)
  t.teardown(() => redis.disconnect())
  await eventually(async () => (redis.status === 'ready' ? true : undefined), 5000, 'ready')
  const silences: number[] = []
  t.teardown(reconnectWhenSilent(redis, { everyMs: 100, silentAfterMs: 500, onSilent: (ms) => silences.push(ms) }))
  return { proxy, redis, silences }
}

t.test('a connection that goes silent is re-made, and answers again once the path heals', async (t) => {
  const { proxy, redis, silences } = await watched(t)

  t.equal(await redis.ping(), 'PONG')
  const quiet = silences.length
  await new Promise((r) => setTimeout(r, 800))
  t.equal(silences.length, quiet, 'a connection that answers is left alone')

  proxy.stall()
  const waiting = redis.get('silence-test-key').then(
    () => 'answered',
    (err: Error) => err.message,
  )
  await eventually(async () => (silences.length > quiet ? true : undefined), 5000, 'the silence to be noticed')
  t.ok(silences[0]! >= 500, `noticed after ${silences[0]} ms without an answer`)
  // Re-made connections are accepted by the stalled path but never get through their handshake: torn down too.
  await eventually(async () => (silences.length >= quiet + 2 ? true : undefined), 5000, 'the hung handshake to be noticed')
  t.not(redis.status, 'ready', 'not ready while the path is stalled')
  // A new command fails at once instead of joining the wait (fail-fast connections have no offline queue).
  const started = Date.now()
  await t.rejects(redis.get('silence-test-key'), /not writeable|Stream isn't writeable|connection/i)
  t.ok(Date.now() - started < 100, 'failed at once')

  proxy.resume()
  await eventually(async () => ((await redis.ping().catch(() => null)) === 'PONG' ? true : undefined), 10_000, 'answers again')
  // The command sent before the silence was neither lost nor answered from the dead socket: ioredis sends it again
  // on the new connection once that is ready.
  t.equal(await waiting, 'answered', 'the command that waited is answered on the new connection')
  t.equal(redis.status, 'ready')
})

t.test('a probe answered while our own event loop was blocked is not taken for a silence', async (t) => {
  const { proxy, redis, silences } = await watched(t)

  // A probe goes out and waits in the held path; the path heals, and at that moment our loop is blocked for 300 ms
  // (more than two probe intervals): the next tick runs late, before the answer is read.
  proxy.stall()
  await new Promise((r) => setTimeout(r, 250))
  proxy.resume()
  const until = Date.now() + 300
  while (Date.now() < until);
  await new Promise((r) => setTimeout(r, 1500))
  t.same(silences, [], 'the answer read after the late tick ends the wait')
  t.equal(redis.status, 'ready')
})
