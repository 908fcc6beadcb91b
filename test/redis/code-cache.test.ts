/** The Redis code cache: rebuild from MySQL after a loss, and removal with a revoked code (src/redis/code-cache.ts). */
import t from 'tap'
import { listAllCodes } from '../../src/mysql/code-rows.js'
import { createCodeCache } from '../../src/redis/code-cache.js'
import { getText, startStack } from '../helpers/stack.js'

t.test('when Redis loses the code cache, a rebuild from MySQL serves every live code again', async (t) => {
  const stack = await startStack(t, { env: { RATE_LIMITS: 'off' }, consumers: [] })
  const a = (await stack.codes.issue('600000000000000001')).code.code
  const b = (await stack.codes.issue('600000000000000002')).code.code
  await stack.codes.bind(a, { platformUserId: '1', platformUsername: 'Cached_A' }, { source: 'test' })
  await stack.codes.act(b, 'revoke', { source: 'test' })
  const keys = stack.ctx.keys
  await stack.redis.del(keys.codes, keys.holders, keys.codesBuilt)
  t.equal((await getText(`${stack.api}/callbacks/${a}`)).text, `{${a}:\n"Code not found";\n}\n`, 'a lost cache shows as unknown')
  const cache = createCodeCache(stack.redis, keys)
  t.equal(await cache.ensureBuilt(() => listAllCodes(stack.db)), true)
  t.equal(await cache.ensureBuilt(() => listAllCodes(stack.db)), false, 'a built cache is not rebuilt')
  t.equal((await getText(`${stack.api}/callbacks/${a}`)).text, `{${a};\nCached_A;\nNo activity detected;\n}\n`)
  t.equal((await getText(`${stack.api}/callbacks/${b}`)).text, `{${b}:\n"Code not found";\n}\n`)
  t.equal(await stack.redis.hget(keys.holders, '600000000000000001'), a)
  t.equal(await stack.redis.hget(keys.holders, '600000000000000002'), null)
  t.match(await stack.redis.hget(keys.codes, b), /^revoked\|/, 'the revoked code is back as a tombstone')
})

t.test('revoking a code removes the presence stored under it', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const { code } = await stack.codes.issue('600000000000000009')
  await stack.presence.set(code.code, { shard: 0, status: 'online', activity: 'Playing,\nMinecraft;\n' })
  await stack.codes.act(code.code, 'revoke', { source: 'test' })
  t.equal(await stack.redis.hexists(stack.ctx.keys.presence, code.code), 0)
})
