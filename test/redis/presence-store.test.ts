/** The holders reads of src/redis/presence-store.ts against real Redis: the gateway's codesOf and the copies' holders share them. */
import t from 'tap'
import { createCopyStore } from '../../src/redis/copy-store.js'
import { createPresenceStore, readHolders } from '../../src/redis/presence-store.js'
import { startStack } from '../helpers/stack.js'

t.test('holders', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const { redis } = stack
  const keys = stack.ctx.keys
  await redis.hset(keys.holders, '700000000000000001', 'AB12', '700000000000000002', 'CD34', 'x'.repeat(4000), 'LONG')

  t.test('readHolders gives the code of each user who holds one, in the order asked, and skips the others', async (t) => {
    const cases: Array<[string, string[], Array<[string, string]>]> = [
      ['no users: no read at all', [], []],
      ['one holder', ['700000000000000001'], [['700000000000000001', 'AB12']]],
      ['two holders, asked in reverse', ['700000000000000002', '700000000000000001'], [['700000000000000002', 'CD34'], ['700000000000000001', 'AB12']]],
      ['a user without a code is left out', ['700000000000000003', '700000000000000001'], [['700000000000000001', 'AB12']]],
      ['odd ids are only fields', ['', 'ab\ncd', '👍🏽', 'x'.repeat(4000)], [['x'.repeat(4000), 'LONG']]],
    ]
    for (const [what, users, want] of cases) t.same([...(await readHolders(redis, keys, users))], want, what)
  })

  t.test("the gateway's codesOf and the copies' holders read the same", async (t) => {
    const users = ['700000000000000001', '700000000000000009', '700000000000000002']
    const want = [...(await readHolders(redis, keys, users))]
    t.same([...(await createPresenceStore(redis, keys).codesOf(users))], want)
    t.same([...(await createCopyStore(redis, keys).holders(users))], want)
  })
})
