/**
 * The fronts' memory of API keys (src/redis/api-key-cache.ts) on the real Redis and change feed: a remembered key
 * costs no Redis read, a revocation (through the key service, as `keys revoke` does) is refused as soon as the feed
 * delivers it, and nothing is remembered or answered from memory while the feed is not live.
 */
import t from 'tap'
import { createKeyVerifier } from '../../src/auth/api-key-service.js'
import { createApiKeyCache } from '../../src/redis/api-key-cache.js'
import { createApiKeyCopy } from '../../src/redis/api-key-copy.js'
import { followChangeFeed } from '../../src/redis/change-feed.js'
import { createRedis } from '../../src/redis/connection.js'
import { buildApiKeyService } from '../../src/runtime/services.js'
import { commandsDuring } from '../../tools/harness/redis-monitor.js'
import { eventually, startStack } from '../helpers/stack.js'

/** HGETs of `hash` sent while `work` runs (MONITOR). */
async function hgetsOf(redisUrl: string, hash: string, work: () => Promise<void>): Promise<number> {
  const commands = await commandsDuring(redisUrl, work)
  return commands.filter((args) => args[0]?.toLowerCase() === 'hget' && args[1] === hash).length
}

t.test('API keys remembered by a front', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const keys = stack.ctx.keys
  const service = buildApiKeyService(stack.db, stack.redis, keys)
  const subscriber = createRedis(stack.config.redisUrl, 'worker', `key-cache-feed-${process.pid}`)
  const feed = await followChangeFeed(subscriber, keys)
  t.teardown(() => feed.close())
  const reads = createRedis(stack.config.redisUrl, 'request', `key-cache-reads-${process.pid}`)
  t.teardown(() => reads.disconnect())
  const cache = createApiKeyCache(createApiKeyCopy(reads, keys), feed)
  const verify = createKeyVerifier(cache, '')

  const made = await service.create('cached-game')
  if (!made.ok) throw new Error('could not create the key')
  const bearer = `Bearer ${made.key}`

  t.test('a key read once is answered from memory: 100 requests, one Redis read', async (t) => {
    const hgets = await hgetsOf(stack.config.redisUrl, keys.apiKeys, async () => {
      const names = new Set<string>()
      for (let i = 0; i < 100; i++) {
        const check = await verify(bearer)
        names.add(check.ok ? check.name : `refused: ${check.message}`)
      }
      t.same([...names], ['cached-game'], 'every one accepted')
    })
    t.equal(hgets, 1)
  })

  t.test("a key's id with another secret is refused, however often the right secret was accepted", async (t) => {
    t.match(await verify(bearer), { ok: true })
    const id = made.key.split('_')[1]!
    const wrong = `Bearer pl_${id}_${'0'.repeat(32)}`
    const oneOff = `Bearer ${made.key.slice(0, -1)}${made.key.endsWith('a') ? 'b' : 'a'}`
    for (const token of [wrong, oneOff]) t.same(await verify(token), { ok: false, message: 'invalid API key' }, token)
    t.match(await verify(bearer), { ok: true }, 'the right one still goes')
  })

  t.test('a made-up key id is remembered too, and still refused', async (t) => {
    const madeUp = 'Bearer pl_zzzzzzzzzzzz_00000000000000000000000000000000'
    const hgets = await hgetsOf(stack.config.redisUrl, keys.apiKeys, async () => {
      const answers = new Set<string>()
      for (let i = 0; i < 20; i++) answers.add(JSON.stringify(await verify(madeUp)))
      t.same([...answers], [JSON.stringify({ ok: false, message: 'invalid API key' })], 'every one refused')
    })
    t.equal(hgets, 1)
  })

  t.test('a revoked key is refused once the feed has delivered the revocation, with no request in between', async (t) => {
    t.match(await verify(bearer), { ok: true }, 'remembered')
    t.equal(await service.revoke('cached-game'), true)
    const refused = await eventually(async () => ((await verify(bearer)).ok ? undefined : true), 2000, 'the revocation to reach the front')
    t.equal(refused, true)
    t.equal(cache.size <= 1, true, 'the memory was emptied')
  })

  t.test('a key the copy lacked is accepted once the copy is repaired (the repair says so on the feed)', async (t) => {
    const again = await service.create('cached-game-2')
    if (!again.ok) throw new Error('could not create the key')
    const id = /^pl_([a-z0-9]{12})_/.exec(again.key)![1]!
    const stored = (await stack.redis.hget(keys.apiKeys, id))!
    // Redis lost the key's copy: the front remembers the id as unknown.
    await stack.redis.hdel(keys.apiKeys, id)
    t.same(await verify(`Bearer ${again.key}`), { ok: false, message: 'invalid API key' }, 'unknown while the copy lacks it')
    t.same(await verify(`Bearer ${again.key}`), { ok: false, message: 'invalid API key' }, 'still, from memory')
    // The reconciler puts it back from MySQL (the same script: compare-and-set on the version).
    const [secretHash, name, version] = stored.split('|')
    t.equal(await createApiKeyCopy(stack.redis, keys).putMany([{ id, name: name!, secretHash: secretHash!, version: Number(version), revoked: false }]), 1)
    const accepted = await eventually(async () => ((await verify(`Bearer ${again.key}`)).ok ? true : undefined), 2000, 'the repaired copy to reach the front')
    t.equal(accepted, true)
  })

  t.test('when the feed stops being live the memory is emptied, and it fills again once live', async (t) => {
    const third = await service.create('cached-game-3')
    if (!third.ok) throw new Error('could not create the key')
    // The creation's own feed message empties the memory when it arrives: read until the key stays remembered.
    t.equal(await eventually(async () => ((await verify(`Bearer ${third.key}`)).ok && cache.size >= 1 ? true : undefined), 2000, 'the key remembered'), true)
    const sizesWhenLost: number[] = []
    const stop = feed.onLive((live) => {
      if (!live) sizesWhenLost.push(cache.size)
    })
    t.teardown(stop)
    const list = await stack.redis.client('LIST')
    const line = String(list).split('\n').find((l) => l.includes(`name=presence-link:key-cache-feed-${process.pid}`))!
    await stack.redis.client('KILL', 'ID', /\bid=(\d+)/.exec(line)![1]!)
    await eventually(async () => (sizesWhenLost.length > 0 ? true : undefined), 5000, 'the feed to stop being live')
    t.same(sizesWhenLost, [0], 'nothing remembered once the feed was lost')
    await eventually(async () => (feed.live ? true : undefined), 10_000, 'the feed to be live again')
    t.match(await verify(`Bearer ${third.key}`), { ok: true })
    t.equal(cache.size, 1, 'remembered again')
  })
})
