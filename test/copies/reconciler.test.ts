/**
 * The reconciler (src/copies/reconciler.ts): drift between MySQL and the Redis copies, made behind the service's back
 * or left by a command whose Redis write failed, is repaired within its bound, and each repair is counted.
 */
import { connect, createServer, type Server, type Socket } from 'node:net'
import t from 'tap'
import { sql } from 'kysely'
import { createMetricsRegistry } from '../../src/metrics/registry.js'
import { parseApiKey } from '../../src/auth/api-key.js'
import { createApiKeyService } from '../../src/auth/api-key-service.js'
import { createApiKeyRows } from '../../src/mysql/api-key-rows.js'
import { createApiKeyCopy } from '../../src/redis/api-key-copy.js'
import { createCodeCache } from '../../src/redis/code-cache.js'
import { startReconciler } from '../../src/copies/reconciler.js'
import { createCopySource } from '../../src/mysql/copy-source.js'
import { createCopyStore } from '../../src/redis/copy-store.js'
import { createRedis, waitReady } from '../../src/redis/connection.js'
import { buildApiKeyService, buildCodeService } from '../../src/runtime/services.js'
import { freePort } from '../helpers/scratch.js'
import { eventually, getText, postJson, startStack } from '../helpers/stack.js'
import { unreachableRedis } from '../helpers/unreachable-redis.js'

const actor = { source: 'test' }

/** A TCP proxy to the test Redis that can be cut (every connection dropped, nothing accepted) and restored on its port. */
async function redisProxy(port: number): Promise<{ cut(): Promise<void>; restore(): Promise<void> }> {
  const sockets = new Set<Socket>()
  let server: Server
  const listen = async (): Promise<void> => {
    server = createServer((client) => {
      const upstream = connect(6379, '127.0.0.1')
      for (const s of [client, upstream]) {
        sockets.add(s)
        s.on('error', () => {})
        s.on('close', () => {
          sockets.delete(s)
          client.destroy()
          upstream.destroy()
        })
      }
      client.pipe(upstream).pipe(client)
    })
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  }
  await listen()
  return {
    cut: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const s of sockets) s.destroy()
      await closed
    },
    restore: listen,
  }
}

t.test('the reconciler', async (t) => {
  const stack = await startStack(t, { env: { RATE_LIMITS: 'off' }, consumers: [] })
  const { db, redis } = stack
  const keys = stack.ctx.keys
  const registry = createMetricsRegistry()
  const reconciler = startReconciler({ source: createCopySource(db), store: createCopyStore(redis, keys), log: stack.ctx.log, metrics: registry }, { sweepEveryMs: 3000 })
  t.teardown(() => reconciler.stop())
  await reconciler.pass()
  const block = async (code: string): Promise<string> => (await getText(`${stack.api}/callbacks/${code}`)).text
  const bindStatus = async (key: string): Promise<number> => (await postJson(`${stack.api}/bind`, {}, `Bearer ${key}`)).status
  const broken = await unreachableRedis(t)
  /** Waits until `check` holds and reports how long it took. */
  const repaired = async (what: string, check: () => Promise<boolean>): Promise<number> => {
    const started = Date.now()
    await eventually(async () => ((await check()) ? true : undefined), 20_000, what)
    const ms = Date.now() - started
    t.comment(`${what}: ${ms} ms`)
    return ms
  }

  t.test('a ban and a key revoke whose Redis writes failed reach the front through the reconciler', async (t) => {
    const { code } = await stack.codes.issue('810000000000000001')
    await stack.codes.bind(code.code, { platformUserId: '91', platformUsername: 'Lost_Ban' }, actor)
    await t.rejects(buildCodeService(db, createCodeCache(broken, keys)).act(code.code, 'ban', actor))
    const banned = `{${code.code}:\nLost_Ban;\n"This code is banned. Contact support for help.";\n}\n`
    await repaired('ban after a failed Redis write shown by the front', async () => (await block(code.code)) === banned)

    const created = await buildApiKeyService(db, redis, keys).create('lost-revoke')
    if (!created.ok) throw new Error('key not created')
    await t.rejects(createApiKeyService({ rows: createApiKeyRows(db), copy: createApiKeyCopy(broken, keys) }).revoke('lost-revoke'))
    await repaired('key revoke after a failed Redis write refused by the front', async () => (await bindStatus(created.key)) === 401)
  })

  t.test('drift of any kind is repaired: MySQL written behind the copy, entries deleted, stale or extra', async (t) => {
    const a = (await stack.codes.issue('810000000000000002')).code.code
    const b = (await stack.codes.issue('810000000000000003')).code.code
    await stack.codes.bind(b, { platformUserId: '93', platformUsername: 'Stale_Guy' }, actor)
    await stack.codes.act(b, 'ban', actor)

    await sql`UPDATE codes SET paused = TRUE, version = version + 1 WHERE code = ${a}`.execute(db)
    await repaired('MySQL change behind the copy', async () => (await block(a)) === `{${a}:\n"Detection Paused";\n}\n`)

    await redis.hdel(keys.codes, a)
    await repaired('deleted code entry', async () => (await block(a)) === `{${a}:\n"Detection Paused";\n}\n`)

    await redis.hset(keys.codes, b, 'active|0|810000000000000003|Stale_Guy|1')
    await repaired('stale code entry', async () => (await block(b)).includes('This code is banned'))

    await redis.hset(keys.codes, 'ZZZZ', 'active|0|810000000000000099|Ghost|1')
    await redis.hset(keys.holders, '810000000000000099', 'ZZZZ')
    await repaired('extra code entry', async () => (await block('ZZZZ')) === '{ZZZZ:\n"Code not found";\n}\n')
    t.equal(await redis.hget(keys.holders, '810000000000000099'), null, 'with its holder entry')

    await redis.hdel(keys.holders, '810000000000000002')
    await repaired('deleted holder entry', async () => (await redis.hget(keys.holders, '810000000000000002')) === a)

    const stackKeyId = parseApiKey(stack.apiKey)!.id
    await redis.hdel(keys.apiKeys, stackKeyId)
    await repaired('deleted API key entry', async () => (await bindStatus(stack.apiKey)) !== 401)

    await redis.hset(keys.apiKeys, 'planted0000x', 'abc|planted|1')
    await repaired('extra API key entry', async () => (await redis.hexists(keys.apiKeys, 'planted0000x')) === 0)

    const counted = (await registry.getSingleMetric('presence_link_reconciler_repairs_total')!.get()).values
    for (const copy of ['codes', 'holders', 'apikeys']) {
      t.ok((counted.find((v) => v.labels.copy === copy)?.value ?? 0) > 0, `repairs of ${copy} are counted`)
    }
  })

  t.test('after a Redis outage, changes made during it reach the front as soon as the reconciler is connected again', async (t) => {
    reconciler.stop()
    const port = await freePort()
    const proxy = await redisProxy(port)
    const viaProxy = createRedis(`redis://127.0.0.1:${port}`, 'request', 'reconciler-via-proxy')
    viaProxy.on('error', () => {})
    t.teardown(async () => {
      viaProxy.disconnect()
      await proxy.cut()
    })
    await waitReady(viaProxy)
    const outageReconciler = startReconciler({ source: createCopySource(db), store: createCopyStore(viaProxy, keys), log: stack.ctx.log })
    t.teardown(() => outageReconciler.stop())
    await outageReconciler.pass()
    const { code } = await stack.codes.issue('810000000000000004')
    const created = await buildApiKeyService(db, redis, keys).create('outage-revoke')
    if (!created.ok) throw new Error('key not created')

    await proxy.cut()
    await t.rejects(buildCodeService(db, createCodeCache(broken, keys)).act(code.code, 'ban', actor), 'the ban reaches MySQL only')
    await t.rejects(createApiKeyService({ rows: createApiKeyRows(db), copy: createApiKeyCopy(broken, keys) }).revoke('outage-revoke'))
    await new Promise((r) => setTimeout(r, 2000))
    t.not(await bindStatus(created.key), 401, 'during the outage the revoked key still works')

    await proxy.restore()
    const back = Date.now()
    await eventually(async () => (viaProxy.status === 'ready' ? true : undefined), 20_000, 'the reconciler connection')
    t.comment(`reconciler connection ready ${Date.now() - back} ms after Redis was reachable again (ioredis backoff)`)
    const ready = Date.now()
    await repaired('key revoked during the outage refused by the front', async () => (await bindStatus(created.key)) === 401)
    await repaired('code banned during the outage shown banned', async () => (await block(code.code)).includes('This code is banned'))
    t.comment(`both within ${Date.now() - ready} ms of the reconnect, ${Date.now() - back} ms of Redis being reachable`)
  })
})
