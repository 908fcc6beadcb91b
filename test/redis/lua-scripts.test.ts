/** The Lua scripts of src/redis/scripts, run through real Redis: what each does to its keys and what it returns. */
import t from 'tap'
import { createCodeCache } from '../../src/redis/code-cache.js'
import { luaCommand, luaSource } from '../../src/redis/lua-scripts.js'
import { startStack } from '../helpers/stack.js'

const SCRIPTS = ['drop-holder', 'lease-acquire', 'lease-renew', 'lease-release', 'rate-gate-take'] as const

t.test('the Lua scripts', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const { redis } = stack
  const keys = stack.ctx.keys

  t.test('each script documents its KEYS and ARGV in a header block', async (t) => {
    for (const name of SCRIPTS) t.match(luaSource(name), /^--\[\[[\s\S]*KEYS\[1\][\s\S]*ARGV\[1\][\s\S]*Output:[\s\S]*\]\]\n/, name)
  })

  t.test('drop-holder removes a holder entry only while it points at the revoked code', async (t) => {
    const cache = createCodeCache(redis, keys)
    const base = { state: 'active' as const, paused: false, chatUserId: '700000000000000001', platformUserId: null, platformUsername: null }
    await cache.put({ ...base, code: 'OLD1' })
    await cache.put({ ...base, code: 'NEW1' })
    await cache.put({ ...base, code: 'OLD1', state: 'revoked' })
    t.equal(await redis.hget(keys.holders, base.chatUserId), 'NEW1', 'a rotation that set the new code first keeps it')
    t.equal(await redis.hexists(keys.codes, 'OLD1'), 0)
    await cache.put({ ...base, code: 'NEW1', state: 'revoked' })
    t.equal(await redis.hexists(keys.holders, base.chatUserId), 0, 'revoking the held code drops the holder entry')
    const drop = luaCommand(redis, 'drop-holder')
    t.equal(await drop([keys.holders], ['nobody', 'NEW1']), 0, 'nothing to drop answers 0')
  })

  t.test('rate-gate-take records requests up to the budget, then says how long until a slot frees', async (t) => {
    const take = luaCommand(redis, 'rate-gate-take')
    const key = keys.deliveryRate
    t.equal(await take([key], [2, 1000, 'a']), 0)
    t.equal(await take([key], [2, 1000, 'b']), 0)
    const wait = Number(await take([key], [2, 1000, 'c']))
    t.ok(wait >= 1 && wait <= 1001, `a third request waits for the oldest to leave the window (${wait} ms)`)
    t.same(await redis.zrange(key, '0', '-1'), ['a', 'b'], 'a refused request is not recorded')
    const ttl = await redis.pttl(key)
    t.ok(ttl > 0 && ttl <= 1000, 'the log expires with its window')
    await redis.del(key)
  })

  t.test('the lease scripts compare the token before every change', async (t) => {
    const key = keys.deliveryLease('ingame')
    const [acquire, renew, release] = (['lease-acquire', 'lease-renew', 'lease-release'] as const).map((name) => luaCommand(redis, name))
    t.equal(await acquire!([key], ['a', 15_000]), 1)
    t.equal(await acquire!([key], ['b', 15_000]), 0)
    t.equal(await renew!([key], ['b', 15_000]), 0)
    t.equal(await release!([key], ['b']), 0)
    t.equal(await redis.get(key), 'a')
    t.equal(await renew!([key], ['a', 15_000]), 1)
    t.equal(await release!([key], ['a']), 1)
    t.equal(await redis.exists(key), 0)
  })
})
