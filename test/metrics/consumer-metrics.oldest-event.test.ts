/** The oldest-unstored-event gauge of a worker process: the age of the oldest accepted event not stored yet. */
import t from 'tap'
import { createMetricsRegistry } from '../../src/metrics/registry.js'
import { startConsumers } from '../../src/runtime/consumers.js'
import { createLogger } from '../../src/lib/logger.js'
import { createProcessContext } from '../../src/runtime/process-context.js'
import { parseScrape, sampleValue } from '../helpers/prometheus-text.js'
import { eventually, postJson, startStack, type Stack } from '../helpers/stack.js'

const GAUGE = 'presence_link_oldest_unstored_event_age_seconds'
let stack: Stack

t.before(async () => {
  stack = await startStack(t, { env: { RATE_LIMITS: 'off' }, consumers: [] })
})

t.test('reads the age of a waiting event while no worker stores it, and 0 once it is stored', async (t) => {
  const registry = createMetricsRegistry()
  // A process that only reports (no consumer yet): the events wait.
  await startConsumers(stack.ctx, [], registry)
  const read = async (queue: string) => sampleValue(parseScrape(await registry.metrics()), GAUGE, { queue })
  t.equal(await read('log'), 0, 'nothing accepted yet')
  t.equal(await read('audit'), 0)
  const accepted = Date.now()
  t.equal((await postJson(`${stack.api}/log/server`, { event_type: 'waiting_evt', description: 'no worker yet' }, `Bearer ${stack.apiKey}`)).status, 200)
  t.equal((await postJson(`${stack.api}/log/server`, { event_type: 'waiting_evt', description: 'a later one' }, `Bearer ${stack.apiKey}`)).status, 200)
  const age = await eventually(async () => {
    const value = await read('log')
    return value !== undefined && value >= 0.3 ? value : undefined
  }, 5000, 'the age to grow')
  t.ok(age <= (Date.now() - accepted) / 1000 + 0.05, `the age (${age} s) is that of the first event, no older`)
  t.equal(await read('audit'), 0, 'the audit queue is empty')
  const ctx = createProcessContext('worker', stack.config, createLogger('worker', stack.config.logLevel))
  t.teardown(() => ctx.shutdown.run('test done'))
  await startConsumers(ctx, ['log'])
  await eventually(async () => ((await read('log')) === 0 ? true : undefined), 10_000, 'the gauge back to 0')
  const stored = await stack.db.selectFrom('log_entries').select('id').where('event_type', '=', 'waiting_evt').execute()
  t.equal(stored.length, 2)
})
