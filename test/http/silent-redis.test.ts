/**
 * A front whose path to Redis goes silent (a partition: nothing closed, nothing delivered) must not go on serving
 * what its near cache holds while the changes published meanwhile sit in a dead socket: within a few seconds it
 * answers 503 `service_unavailable` instead, and once the path heals it serves the current state again.
 */
import t from 'tap'
import { createRedis } from '../../src/redis/connection.js'
import { createPresenceStore } from '../../src/redis/presence-store.js'
import { eventually, getText, startStack } from '../helpers/stack.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'

const block = (code: string, game: string) => `{${code};\nSilent_One;\nPlaying,\n${game};\n}\n`

t.test('a silent Redis path: no stale answers from the near cache, 503 meanwhile, current answers after', async (t) => {
  const proxy = await startTcpProxy('127.0.0.1', 6379)
  t.teardown(() => proxy.close())
  const stack = await startStack(t, { env: { RATE_LIMITS: 'off', REDIS_URL: `redis://127.0.0.1:${proxy.port}` }, consumers: [] })
  // The test's writer reaches Redis directly, like a gateway on another host whose path is fine.
  const direct = createRedis('redis://127.0.0.1:6379', 'request', `silent-test-${process.pid}`)
  t.teardown(() => direct.disconnect())
  const gateway = createPresenceStore(direct, stack.ctx.keys)

  const { code } = await stack.codes.issue('310000000000000001')
  t.equal((await stack.codes.bind(code.code, { platformUserId: '3101', platformUsername: 'Silent_One' }, { source: 'test' })).status, 'bound')
  await gateway.markLive(0, 3_600_000)
  await gateway.set(code.code, { shard: 0, status: 'online', activity: 'Playing,\nBefore;\n' })
  const url = `${stack.api}/callbacks/${code.code}`
  await eventually(async () => ((await getText(url)).text === block(code.code, 'Before') ? true : undefined), 5000, 'the first view')
  t.equal((await getText(url)).text, block(code.code, 'Before'), 'served, and now cached')

  proxy.stall()
  await gateway.set(code.code, { shard: 0, status: 'online', activity: 'Playing,\nDuring;\n' })
  // The change's feed message is held in the stalled path: only noticing the silence stops the cached view.
  const during = await eventually(async () => {
    const res = await getText(url)
    return res.text === block(code.code, 'Before') ? undefined : res
  }, 15_000, 'the front to stop serving the view from before the stall')
  t.equal(during.status, 503)
  t.equal(during.text, 'temporarily unavailable; retry shortly\n')
  t.equal(during.headers.get('retry-after'), '5')
  for (let i = 0; i < 5; i++) t.not((await getText(url)).text, block(code.code, 'Before'), 'never the old view again while stalled')

  proxy.resume()
  const after = await eventually(async () => {
    const res = await getText(url)
    return res.status === 200 ? res : undefined
  }, 15_000, 'the front to answer again')
  t.equal(after.text, block(code.code, 'During'), 'the change made during the stall')
})
