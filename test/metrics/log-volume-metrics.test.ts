/**
 * Log volume by category and event type: the event type label normalized and bounded per category and process
 * (the first MAX_EVENT_TYPE_LABELS, then `other`); only entries stored for the first time count; and the real worker
 * counts what its log consumer stores, a batch run twice counted once.
 */
import t from 'tap'
import type { Registry } from 'prom-client'
import { createLogVolumeMetrics } from '../../src/metrics/log-volume-metrics.js'
import { eventTypeLabel, MAX_EVENT_TYPE_LABELS, Metric } from '../../src/metrics/metric-names.js'
import { createMetricsRegistry } from '../../src/metrics/registry.js'
import { QueueName } from '../../src/queue/names.js'
import { createBatchAdder, createQueue } from '../../src/queue/queues.js'
import type { LogJob } from '../../src/queue/model/jobs.js'
import { startConsumers } from '../../src/runtime/consumers.js'
import { eventually, startStack } from '../helpers/stack.js'

/** The counter's non-zero series as `category/event_type` → value. */
async function counted(registry: Registry): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric(Metric.logEntriesStored.name)!.get()
  const out: Record<string, number> = {}
  for (const v of metric.values) if (v.value > 0) out[`${String(v.labels.category)}/${String(v.labels.event_type)}`] = v.value
  return out
}

t.test('the event type label', async (t) => {
  const cases: Array<[string, string]> = [
    ['player_join', 'player_join'],
    ['PlayerJoin', 'playerjoin'],
    ['Player Join!', 'player_join'],
    ['  callback-error  ', 'callback_error'],
    ['a.b:c/d', 'a_b_c_d'],
    ['__x__', 'x'],
    ['🎮 join', 'join'],
    ['🎮', 'other'],
    ['', 'other'],
    ['Ünïcode', 'n_code'],
    ['x'.repeat(4000), 'x'.repeat(40)],
    ['line\nbreak', 'line_break'],
    ['other', 'other'],
  ]
  for (const [raw, label] of cases) t.equal(eventTypeLabel(raw), label, JSON.stringify(raw.slice(0, 20)))
})

t.test('counting', async (t) => {
  const registry = createMetricsRegistry()
  const volume = createLogVolumeMetrics(registry)
  const text = await registry.metrics()
  for (const category of ['server', 'ingame', 'moderation']) t.match(text, `presence_link_log_entries_stored_total{category="${category}",event_type="other"} 0`, `${category} starts at 0`)

  volume.stored(
    [
      { category: 'server', eventType: 'boot' },
      { category: 'server', eventType: 'Boot' },
      { category: 'server', eventType: 'boot' },
      { category: 'moderation', eventType: 'kick' },
      { category: 'ingame', eventType: 'chat' },
    ],
    [true, true, false, true, true],
  )
  t.same(await counted(registry), { 'server/boot': 2, 'moderation/kick': 1, 'ingame/chat': 1 }, 'entries stored before (created false) are not counted again')

  t.test('each category names its first types, then counts the rest as other; named types keep their name', async (t) => {
    const flood = Array.from({ length: MAX_EVENT_TYPE_LABELS + 20 }, (_, i) => ({ category: 'ingame', eventType: `flood_${i}` }))
    volume.stored(flood, flood.map(() => true))
    volume.stored([{ category: 'ingame', eventType: 'chat' }, { category: 'ingame', eventType: 'flood_0' }, { category: 'ingame', eventType: 'late' }, { category: 'server', eventType: 'late' }], [true, true, true, true])
    const now = await counted(registry)
    const ingame = Object.keys(now).filter((k) => k.startsWith('ingame/') && k !== 'ingame/other')
    t.equal(ingame.length, MAX_EVENT_TYPE_LABELS, `${MAX_EVENT_TYPE_LABELS} named ingame types`)
    // chat took one of the names, so 49 flood types are named: 21 of the flood and the later type count as other.
    t.equal(now['ingame/other'], 21 + 1, 'the flood past the bound, and a later type, as other')
    t.equal(now['ingame/chat'], 2, 'a type named before the flood keeps its name')
    t.equal(now['ingame/flood_0'], 2)
    t.equal(now['server/late'], 1, 'another category has its own bound')
    const series = (await registry.getSingleMetric(Metric.logEntriesStored.name)!.get()).values.length
    t.ok(series <= 3 * (MAX_EVENT_TYPE_LABELS + 1), `${series} series at most`)
  })
})

t.test('the worker counts what its log consumer stores, once', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const registry = createMetricsRegistry()
  await startConsumers(stack.ctx, ['log'], registry)
  const queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  t.teardown(() => queue.close())
  const add = createBatchAdder(queue)
  const event = (category: LogJob['category'], eventType: string): LogJob => ({
    category,
    eventType,
    description: 'd',
    platformUsername: null,
    platformUserId: null,
    issuedBy: null,
    code: null,
    source: 'test',
    sourceIp: null,
    receivedAt: Date.now(),
  })
  const done = (id: string) => eventually(async () => ((await queue.getJobState(id)) === 'completed' ? true : undefined), 30_000, `job ${id} completed`)
  await add({ events: [{ id: 'e1', event: event('server', 'boot') }, { id: 'e2', event: event('server', 'boot') }, { id: 'e3', event: event('moderation', 'Kick Player') }] }, 'b1')
  await done('b1')
  // A second batch carrying e1 again (a redelivery, as after a crash between storing and completing): stored once.
  await add({ events: [{ id: 'e1', event: event('server', 'boot') }, { id: 'e4', event: event('ingame', 'player_join') }] }, 'b2')
  await done('b2')
  t.equal(Number((await stack.db.selectFrom('log_entries').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n), 4)
  t.same(await counted(registry), { 'server/boot': 2, 'moderation/kick_player': 1, 'ingame/player_join': 1 })
})
