/**
 * The Redis copies converge (issue 10, part 2): writes are compare-and-set on the MySQL row version, a revoked code or
 * key cannot come back, a retried command re-writes a copy its first attempt failed to write, and a resync cannot bring
 * back a key revoked while it ran (src/redis/code-cache.ts, api-key-copy.ts, codes/code-service.ts, auth/api-key-service.ts).
 */
import t from 'tap'
import { createApiKeyService } from '../../src/auth/api-key-service.js'
import { createApiKeyRows } from '../../src/mysql/api-key-rows.js'
import { createApiKeyCopy } from '../../src/redis/api-key-copy.js'
import { createCodeCache } from '../../src/redis/code-cache.js'
import { buildApiKeyService, buildCodeService } from '../../src/runtime/services.js'
import { getText, postJson, startStack } from '../helpers/stack.js'
import { unreachableRedis } from '../helpers/unreachable-redis.js'

const actor = { source: 'test' }

t.test('copies that converge', async (t) => {
  const stack = await startStack(t, { env: { RATE_LIMITS: 'off' }, consumers: [] })
  const { db, redis } = stack
  const keys = stack.ctx.keys
  const cache = createCodeCache(redis, keys)
  const block = async (code: string): Promise<string> => (await getText(`${stack.api}/callbacks/${code}`)).text
  const bindStatus = async (key: string): Promise<number> => (await postJson(`${stack.api}/bind`, {}, `Bearer ${key}`)).status
  const broken = await unreachableRedis(t)

  t.test('two writes of one code reaching Redis in reverse order end with the newer', async (t) => {
    const { code } = await stack.codes.issue('800000000000000001')
    await stack.codes.bind(code.code, { platformUserId: '81', platformUsername: 'Order_Guy' }, actor)
    const banned = await stack.codes.act(code.code, 'ban', actor)
    const unbanned = await stack.codes.act(code.code, 'unban', actor)
    if (!banned.ok || !unbanned.ok) throw new Error('ban/unban refused')
    await cache.put(unbanned.next)
    await cache.put(banned.next)
    t.equal(await block(code.code), `{${code.code};\nOrder_Guy;\nNo activity detected;\n}\n`, 'the unban (newer) stays; the late ban is refused')
  })

  t.test('a late write of an older record cannot bring a revoked code back', async (t) => {
    const { code } = await stack.codes.issue('800000000000000002')
    await stack.codes.act(code.code, 'revoke', actor)
    await cache.put(code)
    t.equal(await block(code.code), `{${code.code}:\n"Code not found";\n}\n`)
    t.equal(await redis.hget(keys.holders, '800000000000000002'), null, 'nor its holder entry')
  })

  t.test('a retried ban whose first attempt did not reach Redis shows the code banned', async (t) => {
    const { code } = await stack.codes.issue('800000000000000003')
    await stack.codes.bind(code.code, { platformUserId: '83', platformUsername: 'Retry_Guy' }, actor)
    const cut = buildCodeService(db, createCodeCache(broken, keys))
    await t.rejects(cut.act(code.code, 'ban', actor), 'MySQL committed, the Redis write failed')
    t.equal(await block(code.code), `{${code.code};\nRetry_Guy;\nNo activity detected;\n}\n`, 'the old state is still live')
    t.match(await stack.codes.act(code.code, 'ban', actor), { ok: false, reason: 'already_banned' }, 'the retry finds nothing to change')
    t.equal(await block(code.code), `{${code.code}:\nRetry_Guy;\n"This code is banned. Contact support for help.";\n}\n`, 'and still writes the copy')
  })

  t.test('a retried rotation whose revoke did not reach Redis revokes the old code in Redis', async (t) => {
    const { code } = await stack.codes.issue('800000000000000004')
    const cut = buildCodeService(db, createCodeCache(broken, keys))
    await t.rejects(cut.rotate('800000000000000004', actor))
    t.equal(await block(code.code), `{${code.code}:\n"Code not linked";\n}\n`, 'the revoked code is still live')
    const { previous } = await stack.codes.rotate('800000000000000004', actor)
    t.equal(previous, undefined, 'the retry finds no live code to revoke')
    t.equal(await block(code.code), `{${code.code}:\n"Code not found";\n}\n`)
  })

  t.test('a retried key revoke whose first attempt did not reach Redis refuses the key', async (t) => {
    const created = await buildApiKeyService(db, redis, keys).create('retried-revoke')
    if (!created.ok) throw new Error('key not created')
    t.not(await bindStatus(created.key), 401)
    const cut = createApiKeyService({ rows: createApiKeyRows(db), copy: createApiKeyCopy(broken, keys) })
    await t.rejects(cut.revoke('retried-revoke'))
    t.not(await bindStatus(created.key), 401, 'the revoked key still works')
    t.equal(await buildApiKeyService(db, redis, keys).revoke('retried-revoke'), false, 'the retry finds no active key')
    t.equal(await bindStatus(created.key), 401, 'and still writes the copy')
  })

  t.test('a key revoked while a resync runs stays refused', async (t) => {
    const service = buildApiKeyService(db, redis, keys)
    const created = await service.create('revoked-mid-sync')
    if (!created.ok) throw new Error('key not created')
    const rows = createApiKeyRows(db) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>
    // The resync's read, then the revoke (MySQL and Redis), then the resync's write: the interleaving of the race.
    const readThenRevoke = (read: string) => async (...a: unknown[]) => {
      const seen = await rows[read]!(...a)
      t.equal(await service.revoke('revoked-mid-sync'), true)
      return seen
    }
    const racing = { ...rows, listAll: readThenRevoke('listAll'), listActive: readThenRevoke('listActive') }
    await createApiKeyService({ rows: racing as never, copy: createApiKeyCopy(redis, keys) }).sync()
    t.equal(await bindStatus(created.key), 401)
    t.not(await bindStatus(stack.apiKey), 401, 'the other keys still work')
  })
})
