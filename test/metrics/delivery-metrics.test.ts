/** Delivery and gateway metric series and their labels. */
import t from 'tap'
import { createDeliveryMetrics } from '../../src/metrics/delivery-metrics.js'
import { createGatewayMetrics } from '../../src/metrics/gateway-metrics.js'
import { createMetricsRegistry } from '../../src/metrics/registry.js'
import { parseScrape, sampleValue } from '../helpers/prometheus-text.js'

t.test('gateway metrics', async (t) => {
  t.test('shard status, ping in seconds and the presence count read at scrape time', async (t) => {
    const registry = createMetricsRegistry()
    let entries = 3
    const g = createGatewayMetrics(registry, { presenceEntries: async () => entries })
    g.setShardReady(0, true)
    g.setShardReady(1, false)
    g.setShardPing(0, 42)
    let m = parseScrape(await registry.metrics())
    t.equal(sampleValue(m, 'presence_link_gateway_shard_ready', { shard: '0' }), 1)
    t.equal(sampleValue(m, 'presence_link_gateway_shard_ready', { shard: '1' }), 0)
    t.equal(sampleValue(m, 'presence_link_gateway_shard_ping_seconds', { shard: '0' }), 0.042)
    t.equal(sampleValue(m, 'presence_link_presence_entries'), 3)
    entries = 5
    g.setShardPing(0, -1)
    g.removeShard(1)
    m = parseScrape(await registry.metrics())
    t.equal(sampleValue(m, 'presence_link_presence_entries'), 5)
    t.equal(sampleValue(m, 'presence_link_gateway_shard_ping_seconds', { shard: '0' }), undefined, 'an unknown ping (-1) is no sample')
    t.equal(sampleValue(m, 'presence_link_gateway_shard_ready', { shard: '1' }), undefined, 'a removed shard is gone')
  })

  t.test('a failing presence count reports NaN (unknown), not 0, and the scrape succeeds', async (t) => {
    const registry = createMetricsRegistry()
    createGatewayMetrics(registry, {
      presenceEntries: async () => {
        throw new Error('Redis down')
      },
    })
    const m = parseScrape(await registry.metrics())
    t.ok(Number.isNaN(sampleValue(m, 'presence_link_presence_entries')))
  })
})

t.test('delivery metrics', async (t) => {
  t.test('requests by destination and result, entries delivered and disabled destinations', async (t) => {
    const registry = createMetricsRegistry()
    const d = createDeliveryMetrics(registry)
    d.request('moderation', 'sent')
    d.request('moderation', 'sent')
    d.request('server', 'rate_limited')
    d.entriesDelivered('moderation', 10)
    d.entriesDelivered('moderation', 0)
    d.setDisabled('ingame', true)
    d.setDisabled('server', false)
    const m = parseScrape(await registry.metrics())
    t.equal(sampleValue(m, 'presence_link_deliveries_total', { destination: 'moderation', result: 'sent' }), 2)
    t.equal(sampleValue(m, 'presence_link_deliveries_total', { destination: 'server', result: 'rate_limited' }), 1)
    t.equal(sampleValue(m, 'presence_link_deliveries_total', { destination: 'ingame', result: 'failed' }), 0, 'known series start at 0')
    t.equal(sampleValue(m, 'presence_link_delivered_entries_total', { destination: 'moderation' }), 10)
    t.equal(sampleValue(m, 'presence_link_delivery_destination_disabled', { destination: 'ingame' }), 1)
    t.equal(sampleValue(m, 'presence_link_delivery_destination_disabled', { destination: 'server' }), 0)
  })

  t.test('a destination outside the categories (a webhook URL by mistake) is counted as other', async (t) => {
    const registry = createMetricsRegistry()
    const d = createDeliveryMetrics(registry)
    d.request('https://discord.com/api/webhooks/1/secret', 'failed')
    const text = await registry.metrics()
    t.notMatch(text, /webhooks|secret/)
    t.equal(sampleValue(parseScrape(text), 'presence_link_deliveries_total', { destination: 'other', result: 'failed' }), 1)
  })
})
