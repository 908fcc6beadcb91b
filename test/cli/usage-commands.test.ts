/**
 * Usage per key through the real front: requests with a valid key are counted per key, route and status (a 429 for
 * the key it carried, a bad key not at all), in Prometheus (`presence_link_key_requests_total`) and in Redis, which
 * `presence-link keys usage [--since 1h|24h]` reads without Prometheus.
 */
import { Registry } from 'prom-client'
import t from 'tap'
import { runCommand } from '../../src/cli/dispatch.js'
import { describeUsage } from '../../src/cli/usage-commands.js'
import { createFrontObserver } from '../../src/metrics/front-metrics.js'
import { minuteOf, readUsage } from '../../src/redis/key-usage.js'
import { buildApiKeyService } from '../../src/runtime/services.js'
import { eventually, postJson, startStack } from '../helpers/stack.js'

t.test('keys usage', async (t) => {
  const registry = new Registry()
  const stack = await startStack(t, { env: { RATE_LIMITS: 'log=3/60' }, consumers: ['log'], observer: createFrontObserver(registry) })
  const other = await buildApiKeyService(stack.db, stack.redis, stack.ctx.keys).create('game-eu')
  if (!other.ok) throw new Error('key')
  const log = (key: string) => postJson(`${stack.api}/log/server`, { event_type: 'boot', description: 'up' }, `Bearer ${key}`)
  const statuses: number[] = []
  for (let i = 0; i < 5; i++) statuses.push((await log(stack.apiKey)).status)
  t.same(statuses, [200, 200, 200, 429, 429], 'three pass, two meet the limit')
  t.equal((await log('pl_aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb')).status, 429, 'a bad key meets the limit too (same client)')
  t.equal((await postJson(`${stack.api}/bind`, { code: 'AB12' }, `Bearer ${other.key}`)).status, 422)

  const now = Date.now()
  await eventually(async () => {
    const counts = await readUsage(stack.redis, stack.ctx.keys, minuteOf(now) - 1, minuteOf(now) + 1)
    return counts.reduce((n, c) => n + c.count, 0) >= 6 ? counts : undefined
  }, 10_000, 'the counts flushed to Redis')

  t.test('the command shows requests per key, route and status, 429s under the key they carried', async (t) => {
    const out = await runCommand(stack.ctx, ['keys', 'usage'])
    t.equal(out.exitCode, 0)
    t.same(out.lines, ['key\troute\trequests\tby status (last 1h)', 'game-eu\tbind\t1\t422: 1', 'test-server\tlog\t5\t200: 3, 429: 2'])
    const day = await runCommand(stack.ctx, ['keys', 'usage', '--since', '24h'])
    t.equal(day.lines[0], 'key\troute\trequests\tby status (last 24h)')
    t.equal(day.lines.length, 3)
    t.equal((await runCommand(stack.ctx, ['keys', 'usage', '--since', '2h'])).exitCode, 64)
  })

  t.test('the metric carries the same, and no series for the bad key', async (t) => {
    const text = await registry.metrics()
    t.match(text, /presence_link_key_requests_total\{key="test-server",route="log",status="200"\} 3/)
    t.match(text, /presence_link_key_requests_total\{key="test-server",route="log",status="429"\} 2/)
    t.match(text, /presence_link_key_requests_total\{key="game-eu",route="bind",status="422"\} 1/)
    t.equal((text.match(/presence_link_key_requests_total\{/g) ?? []).length, 3)
  })

  t.test('an hour with no keyed request says so', async (t) => {
    const fresh = await runCommand(stack.ctx, ['keys', 'usage'])
    t.ok(fresh.lines.length > 1)
    t.same(describeUsage([], '1h'), ['no keyed requests in the last 1h'])
  })
})
