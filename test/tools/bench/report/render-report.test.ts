/** The BENCHMARKS.md writer and the delivery table: given figures in, the expected markdown out. */
import { readFile } from 'node:fs/promises'
import t from 'tap'
import type { BindRun } from '../../../../tools/bench/measurements/bind-rate.js'
import type { Comparison, LoadRun } from '../../../../tools/bench/measurements/ceiling-comparison.js'
import type { DeliveryRun } from '../../../../tools/bench/measurements/delivery-throughput.js'
import type { LogRun } from '../../../../tools/bench/measurements/log-accept-store.js'
import { renderDelivery } from '../../../../tools/bench/report/render-delivery.js'
import {
  renderBindSection,
  renderComparisonSection,
  renderGatewayMemorySection,
  renderLogSection,
  renderMemorySection,
  renderPropagationSection,
  renderReport,
  type BenchResults,
} from '../../../../tools/bench/report/render-report.js'
import type { BenchSettings } from '../../../../tools/bench/settings.js'

const MiB = 1024 * 1024

/** The settings of the 2026-11-22 run (what `npm run bench` used then). */
const NOV_22_SETTINGS: BenchSettings = {
  runs: 3,
  linkedUsers: 50,
  connections: 50,
  pipelining: 1,
  loadSeconds: 5,
  warmupSeconds: 1,
  bindRate: 100,
  bindSeconds: 10,
  logEvents: 12_000,
  logConnections: 50,
  memoryUsers: 1000,
  frontWorkers: 1,
  propagationUpdates: 300,
  gatewayMembers: [10_000, 100_000],
}

function load(reqPerSec: number, p50: number, p99: number, serverCores: number, redisCores: number, loadCores: number): LoadRun {
  return { reqPerSec, p50, p99, bad: 0, serverCores, redisCores, loadCores }
}

function logRun(accepted: number, stored: number, rejected = 0): LogRun {
  return { accepted, acceptedPerSec: 2351, loadSeconds: 5.1, drainSeconds: 3.21, stored, rejected }
}

/** The figures behind the BENCHMARKS.md committed on 2026-11-22 (test/tools/bench/report/fixtures). */
const NOV_22: BenchResults = {
  startedAt: new Date('2026-11-22T05:19:28.743Z'),
  seconds: 156.2,
  machine: {
    cpu: 'AMD EPYC',
    cores: 2,
    memory: '23.5 GiB',
    load: '2.14, 2.18, 2.89',
    os: 'Linux 6.18.44-fc-v669 x64',
    node: 'v20.20.2',
    redis: '7.0.15',
    mysql: '10.11.19-MariaDB-0+deb12u1',
    packages: [
      ['hyper-express', '6.17.4'],
      ['uWebSockets.js', '@trufflesuite/uws-js-unofficial@20.30.0-unofficial.0'],
      ['bullmq', '6.7.0'],
      ['ioredis', '6.0.0'],
      ['kysely', '0.28.18'],
      ['mysql2', '3.24.6'],
      ['prom-client', '15.1.3'],
      ['rate-limiter-flexible', '11.4.0'],
      ['autocannon', '9.0.0'],
    ],
  },
  callbacks: {
    route: 'callbacks',
    bodyBytes: 3497,
    service: [load(4582.2, 9, 17, 1.0, 0.24, 0.2), load(4957.48, 9, 16, 1.0, 0.23, 0.21), load(5009.1, 8, 16, 0.99, 0.22, 0.22)],
    ceiling: [load(30524.3, 1, 4, 0.7, 0.01, 0.97), load(31961.08, 1, 4, 0.69, 0.01, 0.96), load(36954, 1, 3, 0.68, 0.01, 0.98)],
  },
  rpc: {
    route: 'rpc',
    bodyBytes: 2847,
    service: [load(4772.06, 10, 16, 1.0, 0.23, 0.22), load(4096, 11, 18, 1.0, 0.2, 0.2), load(4813, 10, 15, 1.0, 0.25, 0.23)],
    ceiling: [load(35945, 1, 3, 0.75, 0, 0.97), load(39640, 1, 3, 0.8, 0, 0.96), load(37403.4, 1, 3, 0.74, 0, 0.98)],
  },
  bind: [
    { sent: 1000, bound: 1000, p50: 6.4, p99: 17.86, max: 30 },
    { sent: 1000, bound: 1000, p50: 6.1, p99: 20, max: 72.98 },
    { sent: 1000, bound: 1000, p50: 7, p99: 15, max: 40 },
  ],
  log: [logRun(12_000, 12_000), logRun(12_000, 12_000), logRun(12_000, 12_000)],
  memory: { users: 1000, keyBytesPerUser: 319.2, usedMemoryPerUser: 384.6, encodings: 'codes: hashtable, holders: hashtable, presence: hashtable' },
  propagation: [
    { updates: 300, p50Ms: 2.16, p99Ms: 12.58, maxMs: 20, callbacksGetP50Ms: 0.71 },
    { updates: 300, p50Ms: 2.5, p99Ms: 13, maxMs: 24.99, callbacksGetP50Ms: 0.8 },
    { updates: 300, p50Ms: 2, p99Ms: 11, maxMs: 15, callbacksGetP50Ms: 0.7 },
  ],
  gateway: [
    { members: 10_000, rssBytes: 141.3 * MiB, resyncSeconds: 1.95 },
    { members: 100_000, rssBytes: 252.9 * MiB, resyncSeconds: 5.571 },
  ],
}

t.test('the whole report keeps the layout and column meanings of the committed BENCHMARKS.md', async (t) => {
  const expected = await readFile(new URL('./fixtures/benchmarks-2026-11-22.md', import.meta.url), 'utf8')
  t.equal(renderReport(NOV_22, NOV_22_SETTINGS), expected)
})

const comparison = (service: LoadRun[], ceiling: LoadRun[]): Comparison => ({ route: 'callbacks', bodyBytes: 12_345, service, ceiling })
const twoRuns: BenchSettings = { ...NOV_22_SETTINGS, runs: 2, linkedUsers: 3, frontWorkers: 2, bindRate: 7, bindSeconds: 2, logEvents: 1500, logConnections: 4, propagationUpdates: 9 }
const bindRuns: BindRun[] = [
  { sent: 14, bound: 14, p50: 1, p99: 3, max: 4 },
  { sent: 14, bound: 12, p50: 2, p99: 5, max: 9.5 },
]

const sections: Array<{ name: string; rendered: () => string; expected: string }> = [
  {
    name: 'a comparison with Redis elsewhere shows n/a for its CPU, and the ratio from the medians',
    rendered: () =>
      renderComparisonSection(
        'Callbacks, 3 codes per request',
        comparison([load(1000, 2, 9, 0.5, Number.NaN, 0.1), load(3000, 4, 11, 0.7, Number.NaN, 0.3)], [load(8000, 1, 2, 0.4, Number.NaN, 0.9), load(12_000, 1, 3, 0.6, Number.NaN, 1.1)]),
        twoRuns,
      ),
    expected: [
      '### Callbacks, 3 codes per request',
      '',
      'GET `/api/v1/callbacks/{3 codes}`, response body 12,345 bytes; the ceiling answers the same body from memory.',
      '',
      '| target | req/s | codes/s | p50 ms | p99 ms | ratio to ceiling | server CPU (cores) | autocannon CPU (cores) |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      '| presence-link front (FRONT_WORKERS=2) | 2,000 | 6,000 | 3 | 10 | 0.20 | 0.60 front + n/a Redis | 0.20 |',
      '| ceiling: plain hyper-express, precomputed body | 10,000 | 30,000 | 1 | 3 | 1.00 | 0.50 | 1.00 |',
      '',
      'Runs (service / ceiling req/s): 1,000 / 8,000; 3,000 / 12,000.',
    ].join('\n'),
  },
  {
    name: 'a bind section lists bound/sent of every run, even when some did not bind',
    rendered: () => renderBindSection(bindRuns, twoRuns),
    expected: [
      '### Bind at a fixed rate',
      '',
      "7 requests/s for 2 s per run, each with a fresh code and a new account (open loop: latency counts from each request's due time).",
      'The bind goes front → BullMQ → worker (MySQL transaction, Redis write-through) → back to the waiting front.',
      '',
      '| p50 ms (median) | p99 ms (median) | worst max ms | bound / sent (every run) |',
      '| --- | --- | --- | --- |',
      '| 1.50 | 4.00 | 9.50 | 14/14, 12/14 |',
    ].join('\n'),
  },
  {
    name: 'a log section with a lost event fails the zero-loss check and says where',
    rendered: () => renderLogSection([logRun(1500, 1500), logRun(1497, 1494, 3)], twoRuns),
    expected: [
      '### Log events: accepted, then stored',
      '',
      'autocannon posts 1,500 events to `POST /api/v1/log/server` per run over 4 connections, as fast as they are accepted;',
      'then the bench waits until MySQL holds every accepted (200) event and checks that the stored count equals the accepted count.',
      '',
      '| accepted/s (median) | drain after load, s (median) | stored/s end to end (median) | lost (accepted − stored), every run | rejected |',
      '| --- | --- | --- | --- | --- |',
      '| 2,351 | 3.21 | 180 | 0, 3 | 0, 3 |',
      '',
      'Zero-loss check: **FAILED**: see the lost column.',
      'Runs (accepted events): 1,500, 1,497.',
    ].join('\n'),
  },
  {
    name: 'a memory section rounds bytes per user and keeps the encodings as given',
    rendered: () => renderMemorySection({ users: 25, keyBytesPerUser: 99.5, usedMemoryPerUser: Number.NaN, encodings: 'codes: listpack, holders: listpack, presence: listpack' }),
    expected: [
      '### Memory',
      '',
      '| what | value |',
      '| --- | --- |',
      '| Redis bytes per linked user (MEMORY USAGE of the code, holder and presence hashes) | 100 B |',
      '| Redis used_memory growth per linked user (INFO memory) | n/a B |',
      '| measured over | 25 users linked through the code service, each with a rendered presence (codes: listpack, holders: listpack, presence: listpack) |',
    ].join('\n'),
  },
  {
    name: 'a propagation section takes medians over runs and the worst maximum of all',
    rendered: () =>
      renderPropagationSection(
        [
          { updates: 9, p50Ms: 1, p99Ms: 8, maxMs: 30, callbacksGetP50Ms: 0.5 },
          { updates: 9, p50Ms: 3, p99Ms: 10, maxMs: 12, callbacksGetP50Ms: 0.7 },
        ],
        twoRuns,
      ),
    expected: [
      '### Presence propagation (gateway)',
      '',
      'The sandbox sends a PRESENCE_UPDATE for a linked user; the clock stops when `GET /api/v1/callbacks/{code}` (polled back to back) shows the new activity.',
      'Path: sandbox gateway socket → discord.js in `presence-link gateway` → Redis presence hash → front. 9 updates per run (tools/bench/gateway-bench.ts).',
      '',
      '| p50 ms (median) | p99 ms (median) | worst max ms | one callbacks GET p50 ms (the polling floor) |',
      '| --- | --- | --- | --- |',
      '| 2.00 | 9.00 | 30.00 | 0.60 |',
    ].join('\n'),
  },
  {
    name: 'a gateway memory section has one row per size, and only the header for none',
    rendered: () =>
      [
        renderGatewayMemorySection([
          { members: 0, rssBytes: 900, resyncSeconds: 0.004 },
          { members: 2_500_000, rssBytes: 3 * 1024 * MiB, resyncSeconds: 61.239 },
        ]),
        renderGatewayMemorySection([]).split('\n').slice(-2).join('\n'),
      ].join('\n\n'),
    expected: [
      '### Gateway memory',
      '',
      'A real `presence-link gateway` process after its resync, every member online with a presence and holding a code (one run per size).',
      '',
      '| members | gateway RSS | resync time, s |',
      '| --- | --- | --- |',
      '| 0 | 900 B | 0.00 |',
      '| 2,500,000 | 3.0 GiB | 61.24 |',
      '',
      '| members | gateway RSS | resync time, s |',
      '| --- | --- | --- |',
    ].join('\n'),
  },
]

t.test('report sections', async (t) => {
  for (const c of sections) t.test(c.name, async (t) => t.equal(c.rendered(), c.expected))
})

t.test('the delivery table has a row per burst, the trickle and the drain, then the median burst', async (t) => {
  const run = (entries: number, totalSeconds: number, requests: number): DeliveryRun => ({ entries, postSeconds: 1.234, totalSeconds, requests, p50Ms: 1500.4, p95Ms: 2999.6 })
  const out = renderDelivery({ bursts: [run(500, 2, 50), run(500, 1, 60), run(500, 4, 50)], trickle: run(200, 10, 20), drain: run(500, 1.25, 50) }, 20)
  t.equal(
    out,
    [
      '',
      '| run | entries | entries/s POST→delivered | posting s | last delivery s | requests | requests per 1,000 | latency p50 ms | latency p95 ms |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      '| burst 1 | 500 | 250 | 1.23 | 2.00 | 50 | 100.0 | 1,500 | 3,000 |',
      '| burst 2 | 500 | 500 | 1.23 | 1.00 | 60 | 120.0 | 1,500 | 3,000 |',
      '| burst 3 | 500 | 125 | 1.23 | 4.00 | 50 | 100.0 | 1,500 | 3,000 |',
      '| trickle 20/s | 200 | 20 | 1.23 | 10.00 | 20 | 100.0 | 1,500 | 3,000 |',
      '| drain (replay, no ingestion) | 500 | 400 | 1.23 | 1.25 | 50 | 100.0 | 1,500 | 3,000 |',
      '',
      'median burst: 250 entries/s, 100.0 requests per 1,000 entries',
      '',
    ].join('\n'),
  )
})
