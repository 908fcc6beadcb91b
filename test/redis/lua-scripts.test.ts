/** The Lua scripts of src/redis/scripts, run through real Redis: what each does to its keys and what it returns. */
import { readdirSync, readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { createCodeCache } from '../../src/redis/code-cache.js'
import { luaCommand, luaSource, readLuaScript } from '../../src/redis/lua-scripts.js'
import { startStack } from '../helpers/stack.js'

const SCRIPTS = ['api-key-put', 'code-put', 'code-remove', 'hash-delete-if', 'holder-repair', 'lease-acquire', 'lease-renew', 'lease-release', 'presence-put', 'push-forget', 'rate-gate-take'] as const

t.test('the Lua scripts', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const { redis } = stack
  const keys = stack.ctx.keys

  t.test('each script documents its KEYS and ARGV in a header block', async (t) => {
    for (const name of SCRIPTS) t.match(luaSource(name), /^--\[\[[\s\S]*KEYS\[1\][\s\S]*ARGV\[1\][\s\S]*Output:[\s\S]*\]\]\n/, name)
  })

  t.test('code-put writes compare-and-set on the version; a revoked code stays as a tombstone', async (t) => {
    const cache = createCodeCache(redis, keys)
    const base = { state: 'active' as const, paused: false, chatUserId: '700000000000000001', platformUserId: null, platformUsername: null }
    t.equal(await cache.put({ ...base, code: 'OLD1', version: 1 }), true)
    t.equal(await cache.put({ ...base, code: 'NEW1', version: 1 }), true)
    t.equal(await cache.put({ ...base, code: 'OLD1', state: 'revoked', version: 2 }), true)
    t.equal(await redis.hget(keys.holders, base.chatUserId), 'NEW1', 'a rotation that set the new code first keeps it')
    t.equal(await redis.hget(keys.codes, 'OLD1'), `revoked|0|${base.chatUserId}||2`, 'the revoked code is a tombstone at its version')
    t.equal(await cache.put({ ...base, code: 'OLD1', version: 1 }), false, 'an older write is refused')
    t.equal(await redis.hget(keys.codes, 'OLD1'), `revoked|0|${base.chatUserId}||2`, 'and cannot bring the code back')
    t.equal(await redis.hget(keys.holders, base.chatUserId), 'NEW1')
    t.equal(await cache.put({ ...base, code: 'NEW1', version: 1 }), false, 'the same version is not rewritten')
    await redis.hdel(keys.holders, base.chatUserId)
    t.equal(await cache.put({ ...base, code: 'NEW1', version: 1 }), true, 'but a missing holder entry is restored')
    t.equal(await redis.hget(keys.holders, base.chatUserId), 'NEW1')
    await redis.hset(keys.codes, 'LEG1', 'active|0|700000000000000002|Legacy_12')
    t.equal(await cache.put({ ...base, chatUserId: '700000000000000002', code: 'LEG1', state: 'banned', version: 1 }), true, 'a record from before versions counts as version 0')
    t.equal(await cache.put({ ...base, code: 'NEW1', state: 'revoked', version: 2 }), true)
    t.equal(await redis.hexists(keys.holders, base.chatUserId), 0, 'revoking the held code drops the holder entry')
  })

  t.test('code-put copies the share setting; a change of setting drops the presence; revoking drops the setting', async (t) => {
    const cache = createCodeCache(redis, keys)
    const base = { code: 'SHR1', state: 'active' as const, paused: false, chatUserId: '700000000000000009', platformUserId: null, platformUsername: null }
    await redis.hset(keys.presence, 'SHR1', '0|online|Playing,\nGame;\n')
    t.equal(await cache.put({ ...base, version: 1, share: 'everything' }), true)
    t.equal(await redis.hexists(keys.share, 'SHR1'), 0, 'everything is not stored')
    t.equal(await redis.hexists(keys.presence, 'SHR1'), 1, 'the same setting keeps the presence')
    t.equal(await cache.put({ ...base, version: 2, share: 'media' }), true)
    t.equal(await redis.hget(keys.share, 'SHR1'), 'media')
    t.equal(await redis.hexists(keys.presence, 'SHR1'), 0, 'a new setting drops the presence filtered under the old one')
    await redis.hset(keys.presence, 'SHR1', '0|online|')
    t.equal(await cache.put({ ...base, version: 3, paused: true }), true, 'a record without a setting')
    t.equal(await redis.hget(keys.share, 'SHR1'), 'media', 'leaves the setting as it is')
    t.equal(await redis.hexists(keys.presence, 'SHR1'), 1, 'and the presence')
    t.equal(await cache.put({ ...base, version: 1, share: 'everything' }), false, 'an older setting is refused')
    t.equal(await redis.hget(keys.share, 'SHR1'), 'media')
    t.equal(await cache.put({ ...base, state: 'revoked', version: 4, share: 'media' }), true)
    t.equal(await redis.hexists(keys.share, 'SHR1'), 0, 'a revoked code has no setting left')
  })

  t.test('code-remove and hash-delete-if remove only the value that was seen', async (t) => {
    const remove = luaCommand(redis, 'code-remove')
    await redis.hset(keys.codes, 'XTR1', 'active|0|42||1')
    await redis.hset(keys.holders, '42', 'XTR1')
    await redis.hset(keys.share, 'XTR1', 'games')
    const k = [keys.codes, keys.holders, keys.presence, keys.share]
    t.equal(await remove(k, [keys.feed, '1|XTR1', 'XTR1', 'active|0|42||2', '42']), 0, 'a changed value stays')
    t.equal(await remove(k, [keys.feed, '1|XTR1', 'XTR1', 'active|0|42||1', '42']), 1)
    t.equal(await redis.hexists(keys.codes, 'XTR1'), 0)
    t.equal(await redis.hexists(keys.holders, '42'), 0, 'with its holder entry')
    t.equal(await redis.hexists(keys.share, 'XTR1'), 0, 'and its share setting')
    const deleteIf = luaCommand(redis, 'hash-delete-if')
    await redis.hset(keys.apiKeys, 'id1', 'a|b|1')
    t.equal(await deleteIf([keys.apiKeys], ['id1', 'a|b|2']), 0)
    t.equal(await deleteIf([keys.apiKeys], ['id1', 'a|b|1']), 1)
  })

  t.test('holder-repair follows the live copy of the code MySQL names', async (t) => {
    const repair = luaCommand(redis, 'holder-repair')
    const k = [keys.codes, keys.holders]
    await redis.hset(keys.codes, 'HLD1', 'active|0|77||1', 'HLD2', 'revoked|0|77||2', 'HLD3', 'active|0|78||1')
    t.equal(await repair(k, ['77', 'HLD2']), 0, 'not to a revoked copy (a rotation since the read wins)')
    t.equal(await repair(k, ['77', 'HLD3']), 0, "not to another user's code")
    t.equal(await repair(k, ['77', 'HLD1']), 1)
    t.equal(await redis.hget(keys.holders, '77'), 'HLD1')
    t.equal(await repair(k, ['77', '']), 0, 'an entry pointing at a live copy stays (the code copy is repaired first)')
    await redis.hset(keys.holders, '77', 'HLD2')
    t.equal(await repair(k, ['77', '']), 1, 'an entry pointing at a revoked copy goes')
    t.equal(await redis.hexists(keys.holders, '77'), 0)
  })

  t.test('api-key-put writes compare-and-set on the version', async (t) => {
    const put = luaCommand(redis, 'api-key-put')
    await redis.hset(keys.apiKeys, 'old', 'abc|legacy')
    const sub = redis.duplicate({ enableOfflineQueue: true })
    t.teardown(() => sub.disconnect())
    const published: string[] = []
    sub.on('message', (_channel: string, message: string) => published.push(message))
    await sub.subscribe(keys.feed)
    t.equal(await put([keys.apiKeys, keys.feed], [1700000000000, 'old', 1, 'abc|legacy|1', 'new', 2, '|n|2']), 2, 'a value from before versions is version 0')
    t.equal(await put([keys.apiKeys, keys.feed], [1700000000001, 'new', 1, 'abc|n|1']), 0, 'an older version never overwrites a newer one')
    t.equal(await redis.hget(keys.apiKeys, 'new'), '|n|2')
    await redis.ping()
    await new Promise((resolve) => setTimeout(resolve, 50))
    t.same(published, ['1700000000000|keys'], 'a write that changed a key says so on the feed; one that changed nothing says nothing')
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

t.test('includes: shared Lua in scripts/includes/ is pulled in by a `--- @include "path"` line', async (t) => {
  const header = '--[[\n  A planted script.\n\n    Input:\n      KEYS[1] a key\n\n      ARGV[1] a value\n\n    Output:\n      a number\n]]\n'
  const dir = pathToFileURL(
    `${t.testdir({
      'plain.lua': `${header}return 1\n`,
      'uses.lua': `${header}--- @include "includes/twice"\n--- @include "includes/one"\n\nreturn twice(one())\n`,
      'missing.lua': `${header}local x = 1\n--- @include "includes/nope"\nreturn x\n`,
      'loop.lua': `${header}--- @include "includes/ping"\nreturn 0\n`,
      includes: {
        'one.lua': 'local function one() return 1 end\n',
        'twice.lua': '--- @include "one"\nlocal function twice(n) return 2 * n end\n',
        'ping.lua': '--- @include "pong"\n',
        'pong.lua': '--- @include "ping"\n',
      },
    })}/`,
  )

  t.test('an include is expanded in place, its own includes first, each file once', async (t) => {
    t.equal(readLuaScript(dir, 'uses'), `${header}local function one() return 1 end\nlocal function twice(n) return 2 * n end\n\n\nreturn twice(one())\n`)
  })

  t.test('a missing include is an error at load, naming the script, its line and the file looked for', async (t) => {
    t.throws(() => readLuaScript(dir, 'missing'), { message: /missing\.lua:13: Lua include "includes\/nope" not found \(.*includes\/nope\.lua\)$/ })
  })

  t.test('a circular include is an error at load', async (t) => {
    t.throws(() => readLuaScript(dir, 'loop'), { message: /pong\.lua:1: circular Lua include "ping"$/ })
  })

  t.test('a script without includes is read as it is', async (t) => {
    t.equal(readLuaScript(dir, 'plain'), `${header}return 1\n`)
  })

  t.test('the shipped scripts: every include resolves, and Redis receives complete scripts', async (t) => {
    const scripts = new URL('../../src/redis/scripts/', import.meta.url)
    for (const file of readdirSync(scripts).filter((f) => f.endsWith('.lua'))) {
      const name = file.slice(0, -'.lua'.length)
      const text = readFileSync(new URL(file, scripts), 'utf8')
      const expanded = readLuaScript(scripts, name)
      t.notMatch(expanded, /@include/, `${name} has no include line left`)
      if (!text.includes('@include')) t.equal(expanded, text, `${name} is unchanged`)
    }
    for (const name of ['api-key-put', 'code-put'] as const) {
      t.equal(luaSource(name).split('local function stored_version(value, fields)').length, 2, `${name} gets stored_version() once`)
      t.match(luaSource(name), /^--\[\[[\s\S]*KEYS\[1\][\s\S]*ARGV\[1\][\s\S]*Output:[\s\S]*\]\]\n/, `${name} still opens with its KEYS/ARGV header`)
    }
  })
})
