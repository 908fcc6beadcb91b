/** The stream metrics as Prometheus scrapes them: open streams by kind, subscriptions, blocks sent, refusals. */
import t from 'tap'
import { createFrontObserver } from '../../src/metrics/front-metrics.js'
import { startMetricsServer } from '../../src/metrics/metrics-server.js'
import { createMetricsRegistry } from '../../src/metrics/registry.js'
import { eventually, getText, startStack, type Stack } from '../helpers/stack.js'
import { sampleValue, scrape } from '../helpers/prometheus-text.js'
import { openSse, openWs } from '../helpers/stream-clients.js'

const registry = createMetricsRegistry()
let stack: Stack
let metrics: string

t.before(async () => {
  stack = await startStack(t, { observer: createFrontObserver(registry), consumers: [], env: { RATE_LIMITS: 'off', STREAM_MAX_CODES: '3' } })
  metrics = `http://127.0.0.1:${(await startMetricsServer(stack.ctx, registry, 0)).port}/metrics`
})

t.test('open streams, subscriptions, blocks sent and refusals are counted', async (t) => {
  const codes = await Promise.all([1, 2].map(async (i) => (await stack.codes.issue(String(320000000000000000n + BigInt(i)))).code.code))
  const before = await scrape(metrics)
  t.equal(sampleValue(before, 'presence_link_streams_open', { kind: 'sse' }), 0)
  t.equal(sampleValue(before, 'presence_link_stream_slow_consumers_total', { kind: 'ws' }), 0)

  const sse = await openSse(stack.origin, `/api/v1/stream/${codes.join('&')}`)
  t.teardown(() => sse.close())
  await sse.next()
  await sse.next()
  const ws = await openWs(`${stack.origin.replace('http', 'ws')}/api/v1/ws`)
  t.teardown(() => ws.close())
  ws.send({ op: 'subscribe', codes: [codes[0]] })
  await ws.next((m) => m.op === 'subscribed')
  t.equal((await getText(`${stack.api}/stream/AAA1&AAA2&AAA3&AAA4`)).status, 400)

  const during = await scrape(metrics)
  t.equal(sampleValue(during, 'presence_link_streams_open', { kind: 'sse' }), 1)
  t.equal(sampleValue(during, 'presence_link_streams_open', { kind: 'ws' }), 1)
  t.equal(sampleValue(during, 'presence_link_stream_subscriptions'), 3)
  t.equal(sampleValue(during, 'presence_link_stream_blocks_sent_total', { kind: 'sse' }), 2)
  t.equal(sampleValue(during, 'presence_link_stream_blocks_sent_total', { kind: 'ws' }), 1)
  t.equal(sampleValue(during, 'presence_link_stream_refusals_total', { kind: 'sse', reason: 'too_many_codes' }), 1)

  sse.close()
  ws.close()
  await eventually(async () => {
    const after = await scrape(metrics)
    const open = (sampleValue(after, 'presence_link_streams_open', { kind: 'sse' }) ?? 1) + (sampleValue(after, 'presence_link_streams_open', { kind: 'ws' }) ?? 1)
    return open === 0 && sampleValue(after, 'presence_link_stream_subscriptions') === 0 ? true : undefined
  }, 5000, 'the streams to be counted closed')
})
