/** The front's and the consumers' metrics as Prometheus scrapes them. */
import t from 'tap'
import { createFrontObserver } from '../../src/metrics/front-metrics.js'
import { ALL_METRICS, QUEUE_STATES, QUEUES, seriesNames } from '../../src/metrics/metric-names.js'
import { startMetricsServer } from '../../src/metrics/metrics-server.js'
import { createMetricsRegistry } from '../../src/metrics/registry.js'
import { startConsumers } from '../../src/runtime/consumers.js'
import { eventually, getText, postJson, startStack, type Stack } from '../helpers/stack.js'
import { exportedNames, sampleValue, scrape, type Scrape } from '../helpers/prometheus-text.js'
import { PENDING_METRICS } from '../helpers/promql.js'

const frontRegistry = createMetricsRegistry()
const workerRegistry = createMetricsRegistry()
let stack: Stack
let frontMetrics: string
let workerMetrics: string

t.before(async () => {
  stack = await startStack(t, {
    observer: createFrontObserver(frontRegistry),
    consumers: [],
    env: { RATE_LIMITS: 'rpc=2/60' },
  })
  await startConsumers(stack.ctx, ['bind', 'log'], workerRegistry)
  frontMetrics = `http://127.0.0.1:${(await startMetricsServer(stack.ctx, frontRegistry, 0)).port}/metrics`
  workerMetrics = `http://127.0.0.1:${(await startMetricsServer(stack.ctx, workerRegistry, 0)).port}/metrics`
})

let chatUser = 300000000000000000n
async function issued(): Promise<string> {
  return (await stack.codes.issue(String(++chatUser))).code.code
}

t.test('front metrics', async (t) => {
  const [a, b] = [await issued(), await issued()]
  const fresh = await issued()
  const bearer = `Bearer ${stack.apiKey}`

  for (let i = 0; i < 3; i++) t.equal((await getText(`${stack.api}/callbacks/${a}&${b}`)).status, 200)
  const rpc = []
  for (let i = 0; i < 3; i++) rpc.push((await getText(`${stack.api}/rpc/${a}`)).status)
  t.same(rpc, [200, 200, 429], 'the third rpc in the window is rate limited')
  t.equal((await postJson(`${stack.api}/bind`, { code: 'not a code' }, bearer)).status, 422)
  const notFound = await postJson(`${stack.api}/bind`, { code: 'ZZZZ', platform_username: 'Nobody_1', platform_user_id: 11 }, bearer)
  t.equal(notFound.body.detail?.status, 'not_found')
  const bound = await postJson(`${stack.api}/bind`, { code: fresh, platform_username: 'Somebody_1', platform_user_id: 12 }, bearer)
  t.equal(bound.body.status, 'bound')
  t.equal((await getText(`${stack.origin}/no/such/path/10.0.0.1`)).status, 404)
  for (let i = 0; i < 2; i++) {
    t.equal((await postJson(`${stack.api}/log/server`, { event_type: 'boot', description: 'server started' }, bearer)).status, 200)
  }

  const m = await scrape(frontMetrics)

  t.test('requests are counted by route name and status', async (t) => {
    t.equal(sampleValue(m, 'presence_link_http_requests_total', { route: 'callbacks', status: '200' }), 3)
    t.equal(sampleValue(m, 'presence_link_http_requests_total', { route: 'rpc', status: '200' }), 2)
    t.equal(sampleValue(m, 'presence_link_http_requests_total', { route: 'rpc', status: '429' }), 1)
    t.equal(sampleValue(m, 'presence_link_http_requests_total', { route: 'bind', status: '422' }), 1)
    t.equal(sampleValue(m, 'presence_link_http_requests_total', { route: 'log', status: '200' }), 2)
    t.equal(sampleValue(m, 'presence_link_http_requests_total', { route: 'not_found', status: '404' }), 1)
  })

  t.test('latency is a histogram per route whose count matches the requests', async (t) => {
    t.equal(sampleValue(m, 'presence_link_http_request_duration_seconds_count', { route: 'callbacks' }), 3)
    t.equal(sampleValue(m, 'presence_link_http_request_duration_seconds_count', { route: 'rpc' }), 3)
    t.equal(sampleValue(m, 'presence_link_http_request_duration_seconds_bucket', { route: 'callbacks', le: '+Inf' }), 3)
    t.ok(m.samples.some((s) => s.name === 'presence_link_http_request_duration_seconds_bucket' && s.labels.le === '0.0001'))
  })

  t.test('rate-limit rejections and error codes are counted', async (t) => {
    t.equal(sampleValue(m, 'presence_link_rate_limited_total', { route: 'rpc' }), 1)
    t.equal(sampleValue(m, 'presence_link_rate_limited_total', { route: 'callbacks' }), 0)
    t.equal(sampleValue(m, 'presence_link_http_errors_total', { route: 'rpc', error: 'rate_limited' }), 1)
    t.equal(sampleValue(m, 'presence_link_http_errors_total', { route: 'bind', error: 'validation_failed' }), 1)
  })

  t.test('codes per request are observed for callbacks', async (t) => {
    t.equal(sampleValue(m, 'presence_link_codes_per_request_count', { route: 'callbacks' }), 3)
    t.equal(sampleValue(m, 'presence_link_codes_per_request_sum', { route: 'callbacks' }), 6)
    t.equal(sampleValue(m, 'presence_link_codes_per_request_count', { route: 'rpc' }), 2, 'the rate-limited rpc never parsed its codes')
  })

  t.test('bind outcomes are counted by status', async (t) => {
    t.equal(sampleValue(m, 'presence_link_bind_outcomes_total', { status: 'not_found' }), 1)
    t.equal(sampleValue(m, 'presence_link_bind_outcomes_total', { status: 'bound' }), 1)
    t.equal(sampleValue(m, 'presence_link_bind_outcomes_total', { status: 'banned' }), 0)
  })

  t.test('no label carries a code, an IP or a raw path', async (t) => {
    const values = m.samples.flatMap((s) => Object.values(s.labels))
    for (const bad of [a, b, fresh, 'ZZZZ', '127.0.0.1', '10.0.0.1', '/no/such/path/10.0.0.1']) {
      t.notOk(values.some((v) => v.includes(bad)), `no label mentions ${bad}`)
    }
  })

  t.test('default Node process metrics are exported', async (t) => {
    t.ok(sampleValue(m, 'process_resident_memory_bytes')! > 0)
    t.ok(m.types.has('nodejs_eventloop_lag_p99_seconds'))
  })

  t.test('every front metric of the list is exported', async (t) => {
    const names = exportedNames(m)
    for (const metric of ALL_METRICS.filter((x) => x.process === 'front')) {
      for (const series of seriesNames(metric)) t.ok(names.has(series), series)
    }
  })
})

t.test('worker metrics', async (t) => {
  // Log jobs finish after their 200; wait until both are recorded.
  const w: Scrape = await eventually(async () => {
    const s = await scrape(workerMetrics)
    return sampleValue(s, 'presence_link_jobs_total', { queue: 'log', result: 'completed' }) === 2 ? s : undefined
  }, 10_000, 'two completed log jobs')

  t.test('job results and durations are recorded per queue', async (t) => {
    t.equal(sampleValue(w, 'presence_link_jobs_total', { queue: 'bind', result: 'completed' }), 2)
    t.equal(sampleValue(w, 'presence_link_jobs_total', { queue: 'bind', result: 'failed' }), 0)
    t.equal(sampleValue(w, 'presence_link_job_duration_seconds_count', { queue: 'bind' }), 2)
    t.equal(sampleValue(w, 'presence_link_job_duration_seconds_count', { queue: 'log' }), 2)
  })

  t.test('queue gauges are present for every queue and state', async (t) => {
    for (const queue of QUEUES) {
      for (const state of QUEUE_STATES) {
        t.type(sampleValue(w, 'presence_link_queue_jobs', { queue, state }), 'number', `${queue} ${state}`)
      }
    }
  })

  t.test('queue gauges read the real queue: a waiting job is counted', async (t) => {
    const { Queue } = await import('bullmq')
    const audit = new Queue('audit', { connection: stack.redis, prefix: stack.ctx.keys.bullPrefix })
    t.teardown(() => audit.close())
    await audit.add('audit', { probe: true })
    const after = await scrape(workerMetrics)
    t.equal(sampleValue(after, 'presence_link_queue_jobs', { queue: 'audit', state: 'waiting' }), 1)
    t.equal(sampleValue(after, 'presence_link_queue_jobs', { queue: 'audit', state: 'failed' }), 0)
  })

  t.test('every worker metric of the list is exported', async (t) => {
    const names = exportedNames(w)
    for (const metric of ALL_METRICS.filter((x) => x.process === 'worker' && !PENDING_METRICS.has(x.name))) {
      for (const series of seriesNames(metric)) t.ok(names.has(series), series)
    }
  })
})
