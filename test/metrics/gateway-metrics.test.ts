/** The gateway's shard and presence metrics. */
import t from 'tap'
import { createGatewayMetrics } from '../../src/metrics/gateway-metrics.js'
import { createMetricsRegistry } from '../../src/metrics/registry.js'
import { startGatewayStack } from '../helpers/gateway-stack.js'

t.test('the gateway reports shard readiness and the number of stored presences', async (t) => {
  const registry = createMetricsRegistry()
  const g = await startGatewayStack(t, { metrics: (presenceEntries) => createGatewayMetrics(registry, { presenceEntries }) })
  const code = await g.codeFor('840000000000000001', 'metered')
  await g.bind(code, 'Metered_R', 70)
  await g.control('POST', 'presence', { user_id: '840000000000000001', status: 'online', activities: [{ type: 0, name: 'Minecraft' }] })
  await g.callbacksUntil(code, (s) => s.includes('Minecraft'))
  const text = await registry.metrics()
  t.match(text, /^presence_link_gateway_shard_ready\{shard="0"\} 1$/m)
  t.match(text, /^presence_link_presence_entries 1$/m)
})
