/**
 * The BENCHMARKS.md writer, the partial reports and the delivery table: given figures in, the expected markdown out;
 * and the report cannot contradict itself (its summary is made from the figures its sections show).
 */
import { readFile, writeFile } from 'node:fs/promises'
import t from 'tap'
import type { BindRun } from '../../../../tools/bench/measurements/bind-rate.js'
import type { Comparison, LoadRun } from '../../../../tools/bench/measurements/ceiling-comparison.js'
import type { DeliveryRun } from '../../../../tools/bench/measurements/delivery-throughput.js'
import type { LogRun } from '../../../../tools/bench/measurements/log-accept-store.js'
import type { ReadPathResult } from '../../../../tools/bench/measurements/read-path.js'
import type { StreamRun } from '../../../../tools/bench/measurements/stream-delivery.js'
import { renderDelivery } from '../../../../tools/bench/report/render-delivery.js'
import type { LoadTrace } from '../../../../tools/bench/report/load-trace.js'
import {
  renderBindSection,
  renderGatewayMemorySection,
  renderLoadSection,
  renderLogSection,
  renderMemorySection,
  renderPartialReport,
  renderPropagationSection,
  renderReadPathSection,
  renderReport,
  renderStreamsSection,
  type BenchResults,
} from '../../../../tools/bench/report/render-report.js'
import type { BatchResults, BatchRun } from '../../../../tools/bench/measurements/log-batch-ingest.js'
import type { BenchSettings } from '../../../../tools/bench/settings.js'

const MiB = 1024 * 1024

/** The settings of `npm run bench` on 2026-11-26. */
const SETTINGS: BenchSettings = {
  runs: 3,
  linkedUsers: 50,
  connections: 50,
  pipelining: 1,
  loadSeconds: 5,
  warmupSeconds: 1,
  bindRate: 100,
  bindSeconds: 10,
  logEvents: 12_000,
  logSeconds: 5,
  batchSize: 100,
  batchConnections: 8,
  batchEvents: 300_000,
  moderateRate: 1000,
  moderateSeconds: 15,
  logConnections: 50,
  memoryUsers: 1000,
  frontWorkers: 1,
  propagationUpdates: 300,
  gatewayMembers: [10_000, 100_000],
  streams: { streams: 10_000, codesPerStream: 50, codes: 2000, updates: 40, spacingMs: 250, lateMs: 50 },
}

function load(reqPerSec: number, p50: number, p99: number, serverCores: number, redisCores: number, loadCores: number): LoadRun {
  return { reqPerSec, p50, p99, bad: 0, serverCores, redisCores, loadCores }
}

/** A log run; `ceilingPerSec` null: the run did not measure the ceiling. */
function logRun(accepted: number, stored: number, rejected = 0, ceilingPerSec: number | null = 4702): LogRun {
  const run: LogRun = { accepted, acceptedPerSec: 2351, loadSeconds: 5.1, drainSeconds: 3.21, stored, rejected }
  return ceilingPerSec === null ? run : { ...run, ceilingPerSec }
}

const comparison = (route: Comparison['route'], bodyBytes: number, service: LoadRun[], ceiling: LoadRun[]): Comparison => ({ route, bodyBytes, service, ceiling })

/** Read-path figures: limits off near the ceiling, limits on at half of it. */
const READ_PATH: ReadPathResult = {
  limitsOff: {
    callbacks: comparison('callbacks', 3497, [load(13_000, 3, 9, 1.0, 0.02, 0.9), load(14_000, 3, 8, 1.0, 0.02, 0.9), load(12_500, 3, 9, 1.0, 0.02, 0.9)], [load(14_500, 2, 6, 0.7, 0.01, 0.95), load(14_000, 2, 6, 0.7, 0.01, 0.95), load(15_000, 2, 5, 0.7, 0.01, 0.95)]),
    rpc: comparison('rpc', 2847, [load(14_000, 3, 8, 1.0, 0.02, 0.9), load(13_500, 3, 8, 1.0, 0.02, 0.9), load(14_500, 3, 8, 1.0, 0.02, 0.9)], [load(15_000, 2, 5, 0.7, 0, 0.95), load(15_500, 2, 5, 0.7, 0, 0.95), load(14_800, 2, 5, 0.7, 0, 0.95)]),
  },
  limitsOn: {
    callbacks: comparison('callbacks', 3497, [load(7000, 6, 16, 1.0, 0.3, 0.5), load(7200, 6, 15, 1.0, 0.3, 0.5), load(6800, 6, 16, 1.0, 0.3, 0.5)], [load(14_000, 2, 6, 0.7, 0.01, 0.95), load(14_400, 2, 6, 0.7, 0.01, 0.95), load(14_200, 2, 6, 0.7, 0.01, 0.95)]),
    rpc: comparison('rpc', 2847, [load(6900, 6, 15, 1.0, 0.3, 0.5), load(7100, 6, 15, 1.0, 0.3, 0.5), load(7000, 6, 15, 1.0, 0.3, 0.5)], [load(15_000, 2, 5, 0.7, 0, 0.95), load(14_000, 2, 5, 0.7, 0, 0.95), load(14_600, 2, 5, 0.7, 0, 0.95)]),
  },
  limitsOnSetup: 'RATE_LIMITS=callbacks=100000000/10,rpc=100000000/10',
  warmRequests: 1000,
  commands: {
    off: { perRequest: 0.001, byCommand: [['hgetall', 0.001]] },
    on: { perRequest: 4.01, byCommand: [['evalsha', 1.001], ['set', 1], ['incrby', 1], ['pttl', 1], ['hgetall', 0.009]] },
  },
}

const EPOCH = Date.parse('2026-11-26T01:00:00.000Z')

/** A stream run: `late` changes out of 40 had a last delivery over 50 ms. */
function streamRun(p50Ms: number, p99Ms: number, rssPerStreamKiB: number, heapPerStreamKiB: number, late: StreamRun['late']): StreamRun {
  return {
    streams: 10_000,
    deliveries: 10_000,
    expected: 10_000,
    p50Ms,
    p99Ms,
    maxMs: p99Ms + 10,
    openSeconds: 30,
    heartbeatMs: 15_000,
    rssBeforeBytes: 80 * MiB,
    rssOpenBytes: 80 * MiB + rssPerStreamKiB * 1024 * 10_000,
    heapBeforeBytes: 20 * MiB,
    heapOpenBytes: 20 * MiB + heapPerStreamKiB * 1024 * 10_000,
    front: { delay: { p50: 10.2, p99: 180.4, max: 201.3 }, gcCount: 35, majorGcCount: 1, longestGcMs: 12.5, gcMs: 80, longestStallMs: 190.2 },
    bench: { longestGcMs: 8, longestStallMs: 30.5 },
    heartbeats: [{ first: EPOCH + 4000, last: EPOCH + 4180, count: 10_000 }],
    updates: Array.from({ length: 40 }, (_, i) => ({ n: i + 1, sentAt: EPOCH + i * 260, writeAckMs: 1, deliveries: 250, firstMs: 3, lastMs: 20 })),
    late,
    windowStart: EPOCH,
    timelines: { frontGc: [], frontStalls: [], benchGc: [], benchStalls: [], heartbeats: [] },
  }
}

const LATE: StreamRun['late'] = [
  { n: 16, firstMs: 190.5, lastMs: 212.25, writeAckMs: 44.9, frontGcMs: 0, frontBusyMs: 180.2, frontWaitingMs: 8.2, benchGcMs: 0, benchStallMs: 30.5, heartbeats: 10_000, cause: 'heartbeat burst (front and clients busy with it)' },
]
const STREAMS: StreamRun[] = [streamRun(8.6, 226.2, 11.8, 7.5, LATE), streamRun(6.6, 31.2, 11.5, 7.25, []), streamRun(7.4, 204.6, 12, 7.75, LATE)]

const LOAD: LoadTrace = {
  before: [2.09, 3.53, 6.36],
  samples: [
    { at: 5, section: 'read path', load1: 2.5 },
    { at: 10, section: 'read path', load1: 2.75 },
    { at: 15, section: 'read path', load1: 3 },
    { at: 20, section: 'streams', load1: 3.5 },
  ],
  after: [3.01, 3.2, 5.9],
}

const MACHINE: BenchResults['machine'] = {
  cpu: 'AMD EPYC',
  cores: 2,
  memory: '23.5 GiB',
  os: 'Linux 6.18.44-fc-v669 x64',
  node: 'v20.20.2',
  commit: '6198084a1b2c3d4e5f60718293a4b5c6d7e8f901',
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
}

/** A run of batches: `stored` events in `seconds` of load and 1 s of drain, with the CPU seconds of each process. */
function batchRun(stored: number, loadSeconds: number, cpu: BatchRun['cpu'], batchSize = 100): BatchRun {
  return { load: { batchSize, connections: 8, events: stored }, accepted: stored, rejected: 0, loadSeconds, drainSeconds: 1, stored, lost: 0, twice: 0, cpu }
}

const BATCHES: BatchResults = {
  peak: [
    batchRun(300_000, 9, { front: 1.5, redis: 0.6, worker: 3, mysql: 4.5, bench: 0.9 }),
    batchRun(300_000, 8, { front: 1.2, redis: 0.6, worker: 2.7, mysql: 4.2, bench: 0.9 }),
    batchRun(300_000, 11, { front: 1.8, redis: 0.9, worker: 3.3, mysql: 4.8, bench: 1.2 }),
  ],
  moderateBatch: batchRun(15_000, 15, { front: 0.3, redis: 0.15, worker: 0.45, mysql: 0.6, bench: 0.15 }),
  moderateSingle: batchRun(15_000, 15, { front: 1.5, redis: 0.9, worker: 1.2, mysql: 0.9, bench: 1.5 }, 1),
}

/** One whole run's figures (the layout fixture: test/tools/bench/report/fixtures/benchmarks-2026-11-26.md). */
const RUN: BenchResults = {
  startedAt: new Date('2026-11-26T01:00:00.000Z'),
  seconds: 812.4,
  machine: MACHINE,
  load: LOAD,
  readPath: READ_PATH,
  bind: [
    { sent: 1000, bound: 1000, p50: 6.4, p99: 17.86, max: 30 },
    { sent: 1000, bound: 1000, p50: 6.1, p99: 20, max: 72.98 },
    { sent: 1000, bound: 1000, p50: 7, p99: 15, max: 40 },
  ],
  log: [logRun(12_000, 12_000), logRun(12_000, 12_000), logRun(12_000, 12_000)],
  backlog: [
    { events: 60_000, batch: 30, seconds: 2.5, worker: 1.26, mysql: 1.02, redis: 0.3 },
    { events: 60_000, batch: 30, seconds: 2.4, worker: 1.2, mysql: 0.96, redis: 0.28 },
    { events: 60_000, batch: 30, seconds: 3, worker: 1.5, mysql: 1.2, redis: 0.33 },
  ],
  batches: BATCHES,
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
  streams: STREAMS,
}

t.test('the whole report keeps the layout and column meanings of the reviewed fixture', async (t) => {
  if (process.env.REGENERATE_FIXTURE === '1') await writeFile(new URL('./fixtures/benchmarks-2026-11-26.md', import.meta.url), renderReport(RUN, SETTINGS))
  const expected = await readFile(new URL('./fixtures/benchmarks-2026-11-26.md', import.meta.url), 'utf8')
  t.equal(renderReport(RUN, SETTINGS), expected)
})

/** The rows of the first markdown table after `heading`. */
function tableAfter(markdown: string, heading: string): string[][] {
  const from = markdown.indexOf(heading)
  if (from < 0) throw new Error(`no ${heading}`)
  const lines = markdown.slice(from).split('\n')
  const start = lines.findIndex((l) => l.startsWith('|'))
  const rows: string[][] = []
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break
    rows.push(line.slice(2, -2).split(' | '))
  }
  return rows
}

t.test('the report cannot contradict itself', async (t) => {
  const report = renderReport(RUN, SETTINGS)
  const summary = tableAfter(report, '## Summary')
  const readPath = tableAfter(report, '### Read path')
  t.match(report.split('\n## ')[1], /^Summary\n/, 'the summary is the first section, before the machine')
  t.match(summary[0]![0], /^callbacks, 50 codes, rate limits off: ratio to the ceiling/, 'the first row is the current front against the ceiling')
  const ratios = (rows: string[][]) => rows.map((r) => /\*\*([\d.]+)\*\*/.exec(r[1]!)?.[1])
  t.same(ratios(summary.slice(0, 4)), readPath.map((r) => r[6]), "the summary's four ratios are the read-path section's, row for row")
  t.same(ratios(summary.slice(0, 4)), ['0.90', '0.93', '0.49', '0.48'])
  const streams = tableAfter(report, '### Streams')
  const median = streams.at(-1)!
  const logs = tableAfter(report, '### Log events: accepted, then stored')
  t.equal(summary[6]![1], `${logs[0]![0]} (**${logs[0]![2]}** of ${logs[0]![1]}) / ${logs[0]![5]} / ${logs[0]![6]}`, "the log row is the section's accepted, ratio, ceiling, stored and lost")
  const backlog = tableAfter(report, '### Log events: a backlog stored')
  t.equal(summary[7]![1], backlog[0]![0], "the backlog's stored/s is the section's median")
  t.same(backlog[0], ['24,000', '21.0', '17.0', '5.0', '24,000, 25,000, 20,000'], 'medians per event: worker 1.26 s / 60,000 events = 21.0 µs')
  const batches = tableAfter(report, '### Log events in batches')
  t.equal(summary[8]![1], `${batches[0]![1]} / ${batches[0]![3]} / ${batches[0]![4]}`, "the batch row is the section's stored/s, lost and twice")
  t.same(batches[0], ['33,333', '**30,000**', '30,000, 33,333, 25,000', '0, 0, 0', '0, 0, 0', '0, 0, 0'], 'stored/s end to end counts the drain: 300,000 events in 9 + 1 s')
  const cpu = tableAfter(report, 'CPU microseconds per stored event, by process')
  t.same(cpu[0], ['peak, batches of 100 (median of the runs)', '5.0', '2.0', '10.0', '15.0', '**32.0**', '3.0'], 'medians per process, and the median of the sums')
  t.equal(summary[9]![1], `${cpu[0]![5]} (${cpu[0]!.slice(1, 5).join(' + ')})`, "the summary's CPU per event is the section's, process by process")
  t.equal(summary[10]![1], `${cpu[1]![5]!.replaceAll('*', '')} / ${cpu[2]![5]!.replaceAll('*', '')}`, 'the moderate figures are the rows of the section')
  t.equal(summary[13]![1], `${median[2]!.replaceAll('*', '')} / ${median[3]} ms (2 of 120 over 50 ms)`, 'the stream p50 and p99 are the section\'s medians')
  t.equal(summary[14]![1], `${median[6]!.replaceAll('*', '')} / ${median[7]!.replaceAll('*', '')}`, 'RSS and heap per stream are the section\'s medians')
  for (const row of summary) t.match(row[2], /^`npm run bench(:read-path|:streams|:log-store|:log-batches|:bind)?`$/, `${row[0]} names its command`)
  t.equal(report.match(/^## Read path/gm), null, 'no appended read-path section of another run')
  t.equal(report.match(/^# /gm)?.length, 1, 'one document')
})

t.test('a partial run prints its sections with the machine and the load, and says BENCHMARKS.md is not it', async (t) => {
  const partial = renderPartialReport({ command: '`npm run bench:streams`', startedAt: RUN.startedAt, seconds: 201.6, machine: MACHINE, load: LOAD, sections: [renderStreamsSection(STREAMS, SETTINGS)] })
  t.match(partial, /^# Benchmarks, partial run\n\nA run of `npm run bench:streams` alone, started 2026-11-26T01:00:00.000Z and 202 s long\. BENCHMARKS\.md is written only by `npm run bench`,/)
  t.match(partial, /\| commit measured \| 6198084a1b2c3d4e5f60718293a4b5c6d7e8f901 \|/)
  t.match(partial, /\| before \| 2\.09 \| 3\.53 \| 6\.36 \|/)
  t.match(partial, /### Streams: a change delivered to 10,000 open streams/)
  t.notMatch(partial, /## Summary/)
})

const twoRuns: BenchSettings = {
  ...SETTINGS,
  runs: 2,
  linkedUsers: 3,
  frontWorkers: 2,
  bindRate: 7,
  bindSeconds: 2,
  logEvents: 1500,
  logConnections: 4,
  propagationUpdates: 9,
  streams: { streams: 4, codesPerStream: 2, codes: 3, updates: 2, spacingMs: 100, lateMs: 50 },
}
const bindRuns: BindRun[] = [
  { sent: 14, bound: 14, p50: 1, p99: 3, max: 4 },
  { sent: 14, bound: 12, p50: 2, p99: 5, max: 9.5 },
]

const twoRunReadPath: ReadPathResult = {
  limitsOff: {
    callbacks: comparison('callbacks', 12_345, [load(1000, 2, 9, 0.5, Number.NaN, 0.1), load(3000, 4, 11, 0.7, Number.NaN, 0.3)], [load(8000, 1, 2, 0.4, Number.NaN, 0.9), load(12_000, 1, 3, 0.6, Number.NaN, 1.1)]),
    rpc: comparison('rpc', 999, [load(5000, 1, 2, 0.5, 0.1, 0.5)], [load(5000, 1, 2, 0.5, 0, 0.5)]),
  },
  limitsOn: {
    callbacks: comparison('callbacks', 12_345, [load(500, 2, 9, 0.5, 0.2, 0.1), load(700, 2, 9, 0.5, 0.2, 0.1)], [load(1000, 1, 2, 0.4, 0, 0.9), load(1000, 1, 3, 0.6, 0, 1.1)]),
    rpc: comparison('rpc', 999, [load(2500, 1, 2, 0.5, 0.1, 0.5)], [load(5000, 1, 2, 0.5, 0, 0.5)]),
  },
  limitsOnSetup: 'RATE_LIMITS=callbacks=9/10',
  warmRequests: 10,
  commands: { off: { perRequest: 0, byCommand: [] }, on: { perRequest: 1.5, byCommand: [['evalsha', 1], ['hgetall', 0.5]] } },
}

const sections: Array<{ name: string; rendered: () => string; expected: string }> = [
  {
    name: 'a read-path section has a row per route and limit setting, each against its own ceiling runs, n/a for a remote Redis',
    rendered: () => renderReadPathSection(twoRunReadPath, twoRuns),
    expected: [
      '### Read path: callbacks and rpc against the ceiling',
      '',
      'Command: `npm run bench` (this section alone: `npm run bench:read-path`). GET `/api/v1/{route}/{3 codes}` (callbacks body 12,345 bytes, rpc 999),',
      '50 connections, 2 runs of 5 s per row, each service run followed by a ceiling run (plain hyper-express answering the same body and headers from memory: the headers of the front it is compared with, RateLimit-* included with limits on, so autocannon parses the same bytes from both).',
      'Rate limits off is the bench\'s front (`RATE_LIMITS=off`); rate limits on is a second front on the same data with `RATE_LIMITS=callbacks=9/10`.',
      '',
      '| route | rate limits | service req/s | p50 ms | p99 ms | ceiling req/s | ratio to ceiling | ratio per run | CPU: front + Redis (cores) | CPU: ceiling (cores) | CPU: autocannon (cores) |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      '| callbacks | off | 2,000 | 3 | 10 | 10,000 | 0.20 | 0.13, 0.25 | 0.60 + n/a | 0.50 | 0.20 |',
      '| rpc | off | 5,000 | 1 | 2 | 5,000 | 1.00 | 1.00 | 0.50 + 0.10 | 0.50 | 0.50 |',
      '| callbacks | on | 600 | 2 | 9 | 1,000 | 0.60 | 0.50, 0.70 | 0.50 + 0.20 | 0.50 | 0.10 |',
      '| rpc | on | 2,500 | 1 | 2 | 5,000 | 0.50 | 0.50 | 0.50 + 0.10 | 0.50 | 0.50 |',
      '',
      'Ratio to ceiling: the median service rate over the median ceiling rate of the same row\'s runs. autocannon reports latency in whole milliseconds.',
      'Redis commands per warm callbacks request (10 sequential requests, MONITOR on this prefix; commands run inside a script and the worker\'s own queue commands are counted too): rate limits off 0.000 (none); rate limits on 1.500 (evalsha 1.000, hgetall 0.500).',
    ].join('\n'),
  },
  {
    name: 'a streams section with a late change lists what overlapped it, and the heartbeat rounds of each run',
    rendered: () => {
      const late = streamRun(7, 120, 10, 6, [{ n: 2, firstMs: 90, lastMs: 120, writeAckMs: 2, frontGcMs: 95.5, frontBusyMs: 100, frontWaitingMs: 0, benchGcMs: 0, benchStallMs: 0, heartbeats: 0, cause: 'front garbage collection' }])
      return renderStreamsSection([{ ...late, streams: 4, deliveries: 7, expected: 8, updates: late.updates.slice(0, 2), rssOpenBytes: late.rssBeforeBytes + 4096 * 4, heapOpenBytes: late.heapBeforeBytes + 2048 * 4, heartbeats: [] }], twoRuns)
    },
    expected: [
      '### Streams: a change delivered to 4 open streams',
      '',
      'Command: `npm run bench` (this section alone: `npm run bench:streams`). 4 streams on one front worker (half SSE, half WebSocket), 2 codes each',
      'drawn from 3 linked codes, then 2 presence changes 100 ms apart; 1 run, each on a world and front of its own.',
      'Latency runs from the Redis write (the presence MULTI that also publishes on the change feed) to the client reading the block; the clients and',
      'the writer share the bench process. The front runs with tools/bench/front-probe.ts preloaded: its garbage collections (perf_hooks), event-loop',
      'delay (monitorEventLoopDelay) and stalls (a 10 ms timer late by more than 20 ms; split by the CPU the process used meanwhile into work and',
      'waiting for a core) during the changes, and its live heap after a full collection.',
      'RSS per open stream: the front worker\'s RSS 2 s after every stream had its first blocks, less its RSS before, over the streams; live heap per open',
      'stream: heap used after a full collection with the streams open (after the changes), less the same before they opened.',
      '',
      '| run | deliveries | p50 ms | p99 ms | max ms | changes late (> 50 ms) | front RSS per open stream | front live heap per open stream | front event-loop delay p99 / max ms | front GCs (major) during the changes, ms | longest front stall ms | longest bench-process pause ms |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      '| 1 | 7 / 8 | 7.0 | 120.0 | 130.0 | 1 of 2 | 4.0 KiB | 2.0 KiB | 180.4 / 201.3 | 35 (1), longest 12.5 | 190.2 | 30.5 |',
      '| **median** |  | **7.0** | **120.0** |  | 1 of 2 (all runs) | **4.0 KiB** | **2.0 KiB** |  |  |  |  |',
      '',
      'Late changes, with what overlapped each one\'s window (from its Redis write to its last delivery; ms):',
      '',
      '| run | change | first delivery | last delivery | write acknowledged | front GC | front stalled, on the CPU | front stalled, waiting for a core | heartbeats arriving | longest bench-process pause | largest contribution |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      '| 1 | 2 | 90.0 | 120.0 | 2.0 | 95.5 | 100.0 | 0.0 | 0 | 0.0 | front garbage collection |',
      '',
      'Heartbeats (every 15,000 ms) the clients received during the changes, as rounds (arrivals less than 1 s apart): run 1: none.',
    ].join('\n'),
  },
  {
    name: 'a streams section without late changes says so',
    rendered: () => renderStreamsSection([streamRun(5, 20, 10, 6, [])], SETTINGS).split('\n').slice(-3).join('\n'),
    expected: [
      'No change was late: every delivery of every run came within 50 ms.',
      '',
      'Heartbeats (every 15,000 ms) the clients received during the changes, as rounds (arrivals less than 1 s apart): run 1: 10,000 over 180 ms.',
    ].join('\n'),
  },
  {
    name: 'a load section has before and after, and the median and maximum of each section in the order they ran',
    rendered: () => renderLoadSection(LOAD),
    expected: [
      '## Load average',
      '',
      '/proc/loadavg when the run began, every few seconds during it, and when it ended. On a shared machine this says how far to trust the figures.',
      '',
      '| when | 1 min | 5 min | 15 min |',
      '| --- | --- | --- | --- |',
      '| before | 2.09 | 3.53 | 6.36 |',
      '| after | 3.01 | 3.20 | 5.90 |',
      '',
      '| during | samples | 1-minute load, median | 1-minute load, max |',
      '| --- | --- | --- | --- |',
      '| read path | 3 | 2.75 | 3.00 |',
      '| streams | 1 | 3.50 | 3.50 |',
    ].join('\n'),
  },
  {
    name: 'a load section of a run too short to sample says so',
    rendered: () => renderLoadSection({ before: [1, 2, 3], samples: [], after: [1, 2, 3] }).split('\n').at(-1)!,
    expected: 'No sample during the run (before: 1.00, 2.00, 3.00).',
  },
  {
    name: 'a bind section lists bound/sent of every run, even when some did not bind',
    rendered: () => renderBindSection(bindRuns, twoRuns),
    expected: [
      '### Bind at a fixed rate',
      '',
      "Command: `npm run bench`. 7 requests/s for 2 s per run, each with a fresh code and a new account (open loop: latency counts from each request's due time).",
      'The bind goes front → BullMQ → worker (MySQL transaction, Redis write-through) → back to the waiting front.',
      '',
      '| p50 ms (median) | p99 ms (median) | worst max ms | bound / sent (every run) |',
      '| --- | --- | --- | --- |',
      '| 1.50 | 4.00 | 9.50 | 14/14, 12/14 |',
    ].join('\n'),
  },
  {
    name: 'a log section with a lost event fails the zero-loss check and says where',
    rendered: () => renderLogSection([logRun(1500, 1500, 0, 4702), logRun(1497, 1494, 3, 3918)], twoRuns),
    expected: [
      '### Log events: accepted, then stored',
      '',
      "Command: `npm run bench` (this section alone, with where the CPU went: `node dist/tools/bench/log-ingest.js` after `npm run build:tools`). wrk (Debian's, one thread: about 14 µs of CPU per request here, against autocannon's 27-58) posts single events to `POST /api/v1/log/server` for 5 s per run over 4 connections, as fast as they are accepted, after 1 s not counted;",
      'then the bench waits until MySQL holds every accepted (200) event and checks that every accepted event is stored, once (wrk stops counting with up to one request in flight per connection, which may be stored uncounted).',
      "Right after each run the same load goes to the ceiling: plain hyper-express on this machine that reads and parses each body and answers the front's own 200, nothing more",
      '(tools/bench/ceiling-app.ts), so the ratio says how much of what this machine can answer the service accepts.',
      '',
      '| accepted/s (median) | ceiling answered/s (median) | accepted / ceiling (median of the runs) | every run | drain after load, s (median) | stored/s end to end (median) | lost (accepted − distinct stored), every run | rejected |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      '| 2,351 | 4,310 | 0.55 | 0.50, 0.60 | 3.21 | 180 | 0, 3 | 0, 3 |',
      '',
      'Zero-loss check: **FAILED**: see the lost column.',
      'Runs (accepted events): 1,500, 1,497.',
    ].join('\n'),
  },
  {
    name: 'a log section whose runs did not all measure the ceiling says so instead of a ratio',
    rendered: () => renderLogSection([logRun(1500, 1500, 0, 4702), logRun(1500, 1500, 0, null)], twoRuns).split('\n').slice(7, 10).join('\n'),
    expected: [
      '| accepted/s (median) | ceiling answered/s (median) | accepted / ceiling (median of the runs) | every run | drain after load, s (median) | stored/s end to end (median) | lost (accepted − distinct stored), every run | rejected |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      '| 2,351 | not measured | not measured | not measured | 3.21 | 181 | 0, 0 | 0, 0 |',
    ].join('\n'),
  },
  {
    name: 'a memory section rounds bytes per user and keeps the encodings as given',
    rendered: () => renderMemorySection({ users: 25, keyBytesPerUser: 99.5, usedMemoryPerUser: Number.NaN, encodings: 'codes: listpack, holders: listpack, presence: listpack' }),
    expected: [
      '### Memory',
      '',
      'Command: `npm run bench`.',
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
      'Command: `npm run bench`. The sandbox sends a PRESENCE_UPDATE for a linked user; the clock stops when `GET /api/v1/callbacks/{code}` (polled back to back) shows the new activity.',
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
      'Command: `npm run bench`. A real `presence-link gateway` process after its resync, every member online with a presence and holding a code (one run per size).',
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
