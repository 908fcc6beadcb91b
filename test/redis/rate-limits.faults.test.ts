/**
 * Rate-limit batches when Redis fails (src/redis/rate-limits.ts), on a private redis-server: a refused call fails
 * each check of its batch and the next batch works; Redis out of memory fails each check as a dependency failure;
 * a batch stuck on its way and the checks waiting behind it all fail when Redis dies, and none hangs.
 */
import { Redis } from 'ioredis'
import t from 'tap'
import { DEFAULT_RATE_LIMITS } from '../../src/config.js'
import { failureKind } from '../../src/queue/model/failure-kind.js'
import { createRedis, waitReady } from '../../src/redis/connection.js'
import { createRedisKeys } from '../../src/redis/keys.js'
import { createRateLimits } from '../../src/redis/rate-limits.js'
import { privateRedis } from '../helpers/parts.js'
import { eventually } from '../helpers/stack.js'

const keys = createRedisKeys('faults')
const clients = Array.from({ length: 30 }, (_, i) => `198.51.100.${i}`)

t.test('rate-limit batches when Redis fails', async (t) => {
  const server = await privateRedis(t)
  // Connection errors while Redis is down are expected here; the checks' own failures are what is tested.
  const admin = new Redis(server.url).on('error', () => undefined)
  t.teardown(() => admin.disconnect())
  const open = async (url: string, name: string) => {
    const conn = createRedis(url, 'request', name).on('error', () => undefined)
    t.teardown(() => conn.disconnect())
    await waitReady(conn)
    return conn
  }

  t.test('a call Redis refuses fails each check of its batch, and the next batch is counted from where Redis stood', async (t) => {
    await admin.call('ACL', 'SETUSER', 'front', 'on', 'nopass', '~*', '&*', '+@all', '-evalsha', '-eval')
    const conn = await open(`redis://front:x@127.0.0.1:${server.port}`, 'acl')
    const check = createRateLimits(conn, keys, DEFAULT_RATE_LIMITS)
    const refused = await Promise.allSettled(clients.map((client) => check('callbacks', client)))
    t.same(refused.map((r) => r.status), clients.map(() => 'rejected'), 'every waiting check got the failure')
    t.match((refused[0] as PromiseRejectedResult).reason, { message: /NOPERM/ })
    await admin.call('ACL', 'SETUSER', 'front', '+@all')
    const counted = await Promise.all(clients.map((client) => check('callbacks', client)))
    t.same(counted.map((o) => o.ok && o.state!.remaining), clients.map(() => 99), 'nothing was counted by the refused call')
    conn.disconnect()
  })

  t.test('Redis out of memory: each check fails as a dependency failure (503), and counting resumes after', async (t) => {
    const check = createRateLimits(await open(server.url, 'oom'), keys, DEFAULT_RATE_LIMITS)
    await admin.config('SET', 'maxmemory', '1')
    const refused = await Promise.allSettled(clients.map((client) => check('rpc', client)))
    await admin.config('SET', 'maxmemory', '0')
    t.same(refused.map((r) => r.status), clients.map(() => 'rejected'))
    for (const r of refused) if (r.status === 'rejected' && failureKind(r.reason) !== 'infrastructure') t.fail(`not a dependency failure: ${String(r.reason)}`)
    t.match((refused[0] as PromiseRejectedResult).reason, { message: /^OOM/ })
    t.match(await check('rpc', clients[0]!), { ok: true, state: { remaining: 99 } })
  })

  t.test('Redis stalls, then dies: the batch on its way and every check behind it fail, none hangs; then it comes back empty', async (t) => {
    const conn = await open(server.url, 'stall')
    const check = createRateLimits(conn, keys, DEFAULT_RATE_LIMITS)
    await admin.call('CLIENT', 'PAUSE', '30000', 'ALL')
    const first = check('info', clients[0]!)
    // The first batch is on its way (Redis holds it); these wait behind it.
    await new Promise((resolve) => setImmediate(resolve))
    const behind = clients.slice(1).map((client) => check('info', client))
    await server.kill()
    const settled = await Promise.allSettled([first, ...behind])
    t.same(settled.map((r) => r.status), clients.map(() => 'rejected'))
    for (const r of settled) if (r.status === 'rejected' && failureKind(r.reason) !== 'infrastructure') t.fail(`not a dependency failure: ${String(r.reason)}`)
    await t.rejects(check('info', clients[0]!), 'while Redis is down a check fails at once')

    await server.start()
    await eventually(async () => (conn.status === 'ready' ? true : undefined), 10_000, 'the connection back')
    t.same(await check('info', clients[0]!), { ok: true, state: { limit: 30, remaining: 29, resetSeconds: 60 } }, 'a fresh window: Redis came back empty')
  })
})
