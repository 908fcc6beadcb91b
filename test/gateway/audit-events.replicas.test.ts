/**
 * An audit event counts as handed over only once a Redis replica holds it (issue 22, item 2), through the real gateway
 * on a private primary with one replica and REDIS_WRITE_REPLICAS=1: while the replica is frozen (SIGSTOP), the audit
 * event's write is not confirmed, and the gateway reports that (presence_link_redis_write_shortfalls_total{write=
 * "audit"}) instead of counting it handed over; the event still reaches MySQL once the worker takes it. The old code
 * counted every audit event handed over as soon as the primary had it.
 */
import t from 'tap'
import { createGatewayMetrics } from '../../src/metrics/gateway-metrics.js'
import { createMetricsRegistry } from '../../src/metrics/registry.js'
import { startGatewayStack } from '../helpers/gateway-stack.js'
import { parseScrape, sampleValue } from '../helpers/prometheus-text.js'
import { replicatedRedis } from '../helpers/replicated-redis.js'
import { eventually } from '../helpers/stack.js'

t.test('audit events and a frozen replica', async (t) => {
  const nodes = await replicatedRedis(t)
  t.test('the unconfirmed audit event is reported, then stored once the worker takes it', async (t) => {
    const registry = createMetricsRegistry()
    const g = await startGatewayStack(t, {
      env: { REDIS_URL: nodes.primary.url, REDIS_WRITE_REPLICAS: '1', REDIS_WRITE_TIMEOUT_MS: '300' },
      metrics: (presenceEntries) => createGatewayMetrics(registry, { presenceEntries }),
    })
    const guild = g.sandbox.defaultGuildId
    const shortfalls = async () => sampleValue(parseScrape(await registry.metrics()), 'presence_link_redis_write_shortfalls_total', { write: 'audit' })
    const ban = (id: string, username: string) => g.control('POST', 'dispatch', { t: 'GUILD_BAN_ADD', d: { guild_id: guild, user: { id, username, discriminator: '0', global_name: null, avatar: null, bot: false } } })
    const stored = (username: string) => eventually(() => g.stack.db.selectFrom('log_entries').selectAll().where('description', 'like', `${username} %`).executeTakeFirst(), 10_000, username)

    await ban('830000000000000001', 'confirmed_ban')
    t.equal((await stored('confirmed_ban')).event_type, 'member_ban')
    t.equal(await shortfalls(), 0, 'with the replica up, the audit event was confirmed')

    nodes.replica.freeze()
    await ban('830000000000000002', 'unconfirmed_ban')
    await eventually(async () => ((await shortfalls()) === 1 ? true : undefined), 10_000, 'the shortfall reported')
    nodes.replica.thaw()
    const row = await stored('unconfirmed_ban')
    t.equal(row.description, 'unconfirmed_ban (830000000000000002) was banned')
    const rows = await g.stack.db.selectFrom('log_entries').select('id').where('description', 'like', 'unconfirmed_ban %').execute()
    t.equal(rows.length, 1, 'stored once')
  })
})
