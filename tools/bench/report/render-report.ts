/**
 * The BENCHMARKS.md writer: a pure function from one run's figures and settings to the markdown, one function per
 * section, and the partial reports of `npm run bench:read-path` and `bench:streams` (which never touch BENCHMARKS.md).
 * The summary at the top is built from the same figures as the sections below it, so the two cannot disagree. The
 * column meanings are the contract with readers comparing runs: change them only on purpose.
 */
import type { BindRun } from '../measurements/bind-rate.js'
import type { Comparison, LoadRun } from '../measurements/ceiling-comparison.js'
import type { GatewayMemoryResult } from '../measurements/gateway-memory.js'
import { lostOf, WARMUP_SECONDS, type LogRun } from '../measurements/log-accept-store.js'
import { backlogCpuPerEvent, backlogRate, type BacklogRun } from '../measurements/log-backlog.js'
import { cpuPerEvent, storedPerSec, type BatchResults } from '../measurements/log-batch-ingest.js'
import type { PropagationResult } from '../measurements/presence-propagation.js'
import type { ReadPathResult } from '../measurements/read-path.js'
import type { MemoryResult } from '../measurements/redis-memory.js'
import type { StreamRun } from '../measurements/stream-delivery.js'
import type { BenchSettings } from '../settings.js'
import { bytes, fixed, int, median, table } from '../../harness/stats.js'
import type { Machine } from './describe-machine.js'
import type { LoadTrace } from './load-trace.js'

/** The commands, as the report names them. */
export const COMMANDS = {
  full: '`npm run bench`',
  readPath: '`npm run bench:read-path`',
  streams: '`npm run bench:streams`',
  logStore: '`npm run bench:log-store`',
  logBatches: '`npm run bench:log-batches`',
  bind: '`npm run bench:bind`',
} as const

/** Everything one `npm run bench` run measured. */
export interface BenchResults {
  startedAt: Date
  /** Length of the whole run. */
  seconds: number
  machine: Machine
  load: LoadTrace
  readPath: ReadPathResult
  bind: BindRun[]
  log: LogRun[]
  backlog: BacklogRun[]
  batches: BatchResults
  memory: MemoryResult
  propagation: PropagationResult[]
  gateway: GatewayMemoryResult[]
  streams: StreamRun[]
}

const med = <T>(runs: readonly T[], f: (r: T) => number) => median(runs.map(f))

/** Service over ceiling, from the medians of each side's runs. */
export function ratioOf(c: Comparison): number {
  return med(c.service, (r) => r.reqPerSec) / med(c.ceiling, (r) => r.reqPerSec)
}

function readPathRow(c: Comparison, limits: string): string[] {
  const s = (f: (r: LoadRun) => number) => med(c.service, f)
  return [
    c.route,
    limits,
    int(s((r) => r.reqPerSec)),
    fixed(s((r) => r.p50), 0),
    fixed(s((r) => r.p99), 0),
    int(med(c.ceiling, (r) => r.reqPerSec)),
    fixed(ratioOf(c)),
    c.service.map((r, i) => fixed(r.reqPerSec / c.ceiling[i]!.reqPerSec)).join(', '),
    `${fixed(s((r) => r.serverCores))} + ${fixed(s((r) => r.redisCores))}`,
    fixed(med(c.ceiling, (r) => r.serverCores)),
    fixed(s((r) => r.loadCores)),
  ]
}

/** "Read path": callbacks and rpc, rate limits off and on, each against the ceiling measured beside it. */
export function renderReadPathSection(rp: ReadPathResult, settings: BenchSettings): string {
  const commands = (c: ReadPathResult['commands']['off']) =>
    `${fixed(c.perRequest, 3)} (${c.byCommand.map(([name, n]) => `${name} ${fixed(n, 3)}`).join(', ') || 'none'})`
  const { callbacks } = rp.limitsOff
  return `### Read path: callbacks and rpc against the ceiling

Command: ${COMMANDS.full} (this section alone: ${COMMANDS.readPath}). GET \`/api/v1/{route}/{${settings.linkedUsers} codes}\` (callbacks body ${int(callbacks.bodyBytes)} bytes, rpc ${int(rp.limitsOff.rpc.bodyBytes)}),
${settings.connections} connections, ${settings.runs} runs of ${settings.loadSeconds} s per row, each service run followed by a ceiling run (plain hyper-express answering the same body and headers from memory: the headers of the front it is compared with, RateLimit-* included with limits on, so autocannon parses the same bytes from both).
Rate limits off is the bench's front (\`RATE_LIMITS=off\`); rate limits on is a second front on the same data with \`${rp.limitsOnSetup}\`.

${table(
  ['route', 'rate limits', 'service req/s', 'p50 ms', 'p99 ms', 'ceiling req/s', 'ratio to ceiling', 'ratio per run', 'CPU: front + Redis (cores)', 'CPU: ceiling (cores)', 'CPU: autocannon (cores)'],
  [readPathRow(rp.limitsOff.callbacks, 'off'), readPathRow(rp.limitsOff.rpc, 'off'), readPathRow(rp.limitsOn.callbacks, 'on'), readPathRow(rp.limitsOn.rpc, 'on')],
)}

Ratio to ceiling: the median service rate over the median ceiling rate of the same row's runs. autocannon reports latency in whole milliseconds.
Redis commands per warm callbacks request (${int(rp.warmRequests)} sequential requests, MONITOR on this prefix; commands run inside a script and the worker's own queue commands are counted too): rate limits off ${commands(rp.commands.off)}; rate limits on ${commands(rp.commands.on)}.`
}

/** "Bind at a fixed rate": latency medians, the worst maximum, and bound/sent of every run. */
export function renderBindSection(bind: readonly BindRun[], settings: BenchSettings): string {
  return `### Bind at a fixed rate

Command: ${COMMANDS.full}. ${settings.bindRate} requests/s for ${settings.bindSeconds} s per run, each with a fresh code and a new account (open loop: latency counts from each request's due time).
The bind goes front → BullMQ → worker (MySQL transaction, Redis write-through) → back to the waiting front.

${table(
  ['p50 ms (median)', 'p99 ms (median)', 'worst max ms', 'bound / sent (every run)'],
  [[fixed(median(bind.map((b) => b.p50))), fixed(median(bind.map((b) => b.p99))), fixed(Math.max(...bind.map((b) => b.max))), bind.map((b) => `${b.bound}/${b.sent}`).join(', ')]],
)}`
}

/** "Log events: accepted, then stored": rates, their ratio to the ceiling, drain time, and the zero-loss check over every run. */
export function renderLogSection(logs: readonly LogRun[], settings: BenchSettings): string {
  const m = logMedians(logs)
  return `### Log events: accepted, then stored

Command: ${COMMANDS.full} (this section alone, with where the CPU went: \`node dist/tools/bench/log-ingest.js\` after \`npm run build:tools\`). wrk (Debian's, one thread: about 14 µs of CPU per request here, against autocannon's 27-58) posts single events to \`POST /api/v1/log/server\` for ${settings.logSeconds} s per run over ${settings.logConnections} connections, as fast as they are accepted, after ${WARMUP_SECONDS} s not counted;
then the bench waits until MySQL holds every accepted (200) event and checks that every accepted event is stored, once (wrk stops counting with up to one request in flight per connection, which may be stored uncounted).
Right after each run the same load goes to the ceiling: plain hyper-express on this machine that reads and parses each body and answers the front's own 200, nothing more
(tools/bench/ceiling-app.ts), so the ratio says how much of what this machine can answer the service accepts.

${table(
  ['accepted/s (median)', 'ceiling answered/s (median)', 'accepted / ceiling (median of the runs)', 'every run', 'drain after load, s (median)', 'stored/s end to end (median)', 'lost (accepted − distinct stored), every run', 'rejected'],
  [
    [
      int(m.accepted),
      m.ceiling === null ? 'not measured' : int(m.ceiling),
      m.ratio === null ? 'not measured' : fixed(m.ratio),
      m.ratios === null ? 'not measured' : m.ratios.map((r) => fixed(r)).join(', '),
      fixed(m.drain),
      int(m.stored),
      m.lost.join(', '),
      logs.map((l) => l.rejected).join(', '),
    ],
  ],
)}

Zero-loss check: ${m.lost.every((n) => n === 0) ? '**passed**: every accepted event was stored exactly once in every run' : '**FAILED**: see the lost column'}.
Runs (accepted events): ${logs.map((l) => int(l.accepted)).join(', ')}.`
}

/** "Log events: a backlog stored": the storing half alone, with the CPU per event of the worker, MySQL and Redis. */
export function renderBacklogSection(runs: readonly BacklogRun[]): string {
  const cpu = backlogCpuPerEvent(runs)
  return `### Log events: a backlog stored

Command: ${COMMANDS.full} (this section alone: ${COMMANDS.logStore}). The storing half on its own, as after an outage when every game server flushes
what it buffered: the log queue is paused, ${int(runs[0]?.events ?? Number.NaN)} events are queued in \`log-batch\` jobs of ${runs[0]?.batch ?? 'n/a'} through the front's own batcher,
then the queue is resumed and the worker stores them (tools/bench/measurements/log-backlog.ts). The front and the load generator are idle meanwhile,
so these per-event figures are what storing costs without them (under the ingestion load above, sharing the cores, each costs more:
\`node dist/tools/bench/log-ingest.js\` prints the CPU per event of every process there). Every run checks that each queued event was stored.

${table(
  ['stored/s (median)', 'worker, µs CPU per event', 'MySQL server, µs CPU per event', 'redis-server, µs CPU per event', 'runs, stored/s'],
  [[int(backlogRate(runs)), fixed(cpu.worker, 1), fixed(cpu.mysql, 1), fixed(cpu.redis, 1), runs.map((r) => int(r.events / r.seconds)).join(', ')]],
)}`
}

/** "Memory": Redis bytes per linked user, two ways. */
export function renderMemorySection(memory: MemoryResult): string {
  return `### Memory

Command: ${COMMANDS.full}.

${table(
  ['what', 'value'],
  [
    ['Redis bytes per linked user (MEMORY USAGE of the code, holder and presence hashes)', `${int(memory.keyBytesPerUser)} B`],
    ['Redis used_memory growth per linked user (INFO memory)', `${int(memory.usedMemoryPerUser)} B`],
    ['measured over', `${int(memory.users)} users linked through the code service, each with a rendered presence (${memory.encodings})`],
  ],
)}`
}

/** "Presence propagation (gateway)": medians over the runs, the worst maximum, and the polling floor. */
export function renderPropagationSection(propagation: readonly PropagationResult[], settings: BenchSettings): string {
  return `### Presence propagation (gateway)

Command: ${COMMANDS.full}. The sandbox sends a PRESENCE_UPDATE for a linked user; the clock stops when \`GET /api/v1/callbacks/{code}\` (polled back to back) shows the new activity.
Path: sandbox gateway socket → discord.js in \`presence-link gateway\` → Redis presence hash → front. ${settings.propagationUpdates} updates per run (tools/bench/gateway-bench.ts).

${table(
  ['p50 ms (median)', 'p99 ms (median)', 'worst max ms', 'one callbacks GET p50 ms (the polling floor)'],
  [[fixed(median(propagation.map((p) => p.p50Ms))), fixed(median(propagation.map((p) => p.p99Ms))), fixed(Math.max(...propagation.map((p) => p.maxMs))), fixed(median(propagation.map((p) => p.callbacksGetP50Ms)))]],
)}`
}

/** "Gateway memory": one row per member count. */
export function renderGatewayMemorySection(gateway: readonly GatewayMemoryResult[]): string {
  return `### Gateway memory

Command: ${COMMANDS.full}. A real \`presence-link gateway\` process after its resync, every member online with a presence and holding a code (one run per size).

${table(
  ['members', 'gateway RSS', 'resync time, s'],
  gateway.map((g) => [int(g.members), bytes(g.rssBytes), fixed(g.resyncSeconds)]),
)}`
}

/** The per-stream figures of one stream run. */
function perStream(run: StreamRun): { rss: number; heap: number } {
  return { rss: (run.rssOpenBytes - run.rssBeforeBytes) / run.streams, heap: (run.heapOpenBytes - run.heapBeforeBytes) / run.streams }
}

/** The stream figures the summary and the section share: medians over the runs. */
function streamMedians(runs: readonly StreamRun[]) {
  return {
    p50: med(runs, (r) => r.p50Ms),
    p99: med(runs, (r) => r.p99Ms),
    rss: med(runs, (r) => perStream(r).rss),
    heap: med(runs, (r) => perStream(r).heap),
    late: runs.reduce((sum, r) => sum + r.late.length, 0),
    changes: runs.reduce((sum, r) => sum + r.updates.length, 0),
  }
}

/**
 * The log figures the summary and the section share: medians over the runs, every run's loss, and the ceiling's
 * rate with each run's ratio to it (null when a run did not measure the ceiling).
 */
export function logMedians(logs: readonly LogRun[]) {
  const ceilings = logs.every((l) => l.ceilingPerSec !== undefined) ? logs.map((l) => l.ceilingPerSec!) : null
  const ratios = ceilings === null ? null : logs.map((l, i) => l.acceptedPerSec / ceilings[i]!)
  return {
    accepted: med(logs, (l) => l.acceptedPerSec),
    ceiling: ceilings === null ? null : median(ceilings),
    ratio: ratios === null ? null : median(ratios),
    ratios,
    drain: med(logs, (l) => l.drainSeconds),
    stored: med(logs, (l) => l.stored / (l.loadSeconds + l.drainSeconds)),
    lost: logs.map(lostOf),
  }
}

/** "Streams": a row per run and the medians, then every late change with what overlapped it. */
export function renderStreamsSection(runs: readonly StreamRun[], settings: BenchSettings): string {
  const s = settings.streams
  const m = streamMedians(runs)
  const row = (r: StreamRun, i: number) => [
    String(i + 1),
    `${int(r.deliveries)} / ${int(r.expected)}`,
    fixed(r.p50Ms, 1),
    fixed(r.p99Ms, 1),
    fixed(r.maxMs, 1),
    `${r.late.length} of ${r.updates.length}`,
    bytes(perStream(r).rss),
    bytes(perStream(r).heap),
    `${fixed(r.front.delay.p99, 1)} / ${fixed(r.front.delay.max, 1)}`,
    `${r.front.gcCount} (${r.front.majorGcCount}), longest ${fixed(r.front.longestGcMs, 1)}`,
    fixed(r.front.longestStallMs, 1),
    fixed(Math.max(r.bench.longestGcMs, r.bench.longestStallMs), 1),
  ]
  const late = runs.flatMap((r, i) =>
    r.late.map((l) => [
      String(i + 1),
      String(l.n),
      fixed(l.firstMs, 1),
      fixed(l.lastMs, 1),
      fixed(l.writeAckMs, 1),
      fixed(l.frontGcMs, 1),
      fixed(l.frontBusyMs, 1),
      fixed(l.frontWaitingMs, 1),
      int(l.heartbeats),
      fixed(Math.max(l.benchGcMs, l.benchStallMs), 1),
      l.cause,
    ]),
  )
  const heartbeats = runs
    .map((r, i) => `run ${i + 1}: ${r.heartbeats.map((h) => `${int(h.count)} over ${int(h.last - h.first)} ms`).join(', ') || 'none'}`)
    .join('; ')
  return `### Streams: a change delivered to ${int(s.streams)} open streams

Command: ${COMMANDS.full} (this section alone: ${COMMANDS.streams}). ${int(s.streams)} streams on one front worker (half SSE, half WebSocket), ${s.codesPerStream} codes each
drawn from ${int(s.codes)} linked codes, then ${s.updates} presence changes ${s.spacingMs} ms apart; ${runs.length} run${runs.length === 1 ? '' : 's'}, each on a world and front of its own.
Latency runs from the Redis write (the presence MULTI that also publishes on the change feed) to the client reading the block; the clients and
the writer share the bench process. The front runs with tools/bench/front-probe.ts preloaded: its garbage collections (perf_hooks), event-loop
delay (monitorEventLoopDelay) and stalls (a 10 ms timer late by more than 20 ms; split by the CPU the process used meanwhile into work and
waiting for a core) during the changes, and its live heap after a full collection.
RSS per open stream: the front worker's RSS 2 s after every stream had its first blocks, less its RSS before, over the streams; live heap per open
stream: heap used after a full collection with the streams open (after the changes), less the same before they opened.

${table(
  ['run', 'deliveries', 'p50 ms', 'p99 ms', 'max ms', `changes late (> ${s.lateMs} ms)`, 'front RSS per open stream', 'front live heap per open stream', 'front event-loop delay p99 / max ms', 'front GCs (major) during the changes, ms', 'longest front stall ms', 'longest bench-process pause ms'],
  [...runs.map(row), ['**median**', '', `**${fixed(m.p50, 1)}**`, `**${fixed(m.p99, 1)}**`, '', `${m.late} of ${m.changes} (all runs)`, `**${bytes(m.rss)}**`, `**${bytes(m.heap)}**`, '', '', '', '']],
)}

${
  late.length === 0
    ? `No change was late: every delivery of every run came within ${s.lateMs} ms.`
    : `Late changes, with what overlapped each one's window (from its Redis write to its last delivery; ms):

${table(['run', 'change', 'first delivery', 'last delivery', 'write acknowledged', 'front GC', 'front stalled, on the CPU', 'front stalled, waiting for a core', 'heartbeats arriving', 'longest bench-process pause', 'largest contribution'], late)}`
}

Heartbeats (every ${int(runs[0]?.heartbeatMs ?? Number.NaN)} ms) the clients received during the changes, as rounds (arrivals less than 1 s apart): ${heartbeats}.`
}

function machineTable(m: Machine): string {
  return table(
    ['what', 'value'],
    [
      ['CPU', `${m.cpu}, ${m.cores} cores`],
      ['memory', m.memory],
      ['OS', m.os],
      ['Node', m.node],
      ['commit measured', m.commit],
      ['Redis', m.redis],
      ['MySQL server', m.mysql],
      ...m.packages.map(([name, version]): [string, string] => [name, version]),
    ],
  )
}

/** "Load average": before and after, and the 1-minute load sampled during each section. */
export function renderLoadSection(load: LoadTrace): string {
  const three = (l: readonly number[]) => l.map((x) => fixed(x)).join(', ')
  const sections: string[] = []
  for (const sample of load.samples) if (!sections.includes(sample.section)) sections.push(sample.section)
  const rows = sections.map((name) => {
    const values = load.samples.filter((x) => x.section === name).map((x) => x.load1)
    return [name, String(values.length), fixed(median(values)), fixed(Math.max(...values))]
  })
  return `## Load average

/proc/loadavg when the run began, every few seconds during it, and when it ended. On a shared machine this says how far to trust the figures.

${table(
  ['when', '1 min', '5 min', '15 min'],
  [
    ['before', ...load.before.map((x) => fixed(x))],
    ['after', ...load.after.map((x) => fixed(x))],
  ],
)}

${rows.length === 0 ? `No sample during the run (before: ${three(load.before)}).` : table(['during', 'samples', '1-minute load, median', '1-minute load, max'], rows)}`
}

/** The first table: the run's headline figures, each from the section below that measured it, with the command that gives it alone. */
export function renderSummary(r: BenchResults, settings: BenchSettings): string {
  const ratio = (c: Comparison) => `**${fixed(ratioOf(c))}** (${int(med(c.service, (x) => x.reqPerSec))} / ${int(med(c.ceiling, (x) => x.reqPerSec))} req/s)`
  const rp = r.readPath
  const logs = logMedians(r.log)
  const batches = batchMedians(r.batches)
  const streams = streamMedians(r.streams)
  const largest = r.gateway.at(-1)
  const codes = settings.linkedUsers
  return `## Summary

The current front against the ceiling (plain hyper-express answering the same bodies and headers from memory) measured in this same run, then the other
headline figures. Each is taken from the section below that measured it.

${table(
  ['measure', 'this run', 'command (this figure alone)'],
  [
    [`callbacks, ${codes} codes, rate limits off: ratio to the ceiling (service / ceiling)`, ratio(rp.limitsOff.callbacks), COMMANDS.readPath],
    [`rpc, ${codes} codes, rate limits off: ratio to the ceiling`, ratio(rp.limitsOff.rpc), COMMANDS.readPath],
    [`callbacks, ${codes} codes, rate limits on: ratio to the ceiling`, ratio(rp.limitsOn.callbacks), COMMANDS.readPath],
    [`rpc, ${codes} codes, rate limits on: ratio to the ceiling`, ratio(rp.limitsOn.rpc), COMMANDS.readPath],
    ['Redis commands per warm callbacks request, rate limits off / on', `${fixed(rp.commands.off.perRequest, 3)} / ${fixed(rp.commands.on.perRequest, 3)}`, COMMANDS.readPath],
    [`bind at ${settings.bindRate}/s: p50 / p99`, `${fixed(med(r.bind, (b) => b.p50))} / ${fixed(med(r.bind, (b) => b.p99))} ms`, COMMANDS.bind],
    [
      'log events: accepted per second (ratio to the ceiling) / stored per second end to end / lost',
      `${int(logs.accepted)} (${logs.ratio === null ? 'ceiling not measured' : `**${fixed(logs.ratio)}** of ${int(logs.ceiling!)}`}) / ${int(logs.stored)} / ${logs.lost.join(', ')}`,
      COMMANDS.full,
    ],
    ['log events stored per second from a backlog (the storing half alone)', int(backlogRate(r.backlog)), COMMANDS.logStore],
    [
      `log events in batches of ${settings.batchSize}: stored per second end to end / lost / stored twice`,
      `**${int(batches.stored)}** / ${batches.lost.join(', ')} / ${batches.twice.join(', ')}`,
      COMMANDS.logBatches,
    ],
    [
      `CPU µs per stored event, batches of ${settings.batchSize} at peak: service (front + Redis + worker + MySQL)`,
      `**${fixed(batches.cpu.service, 1)}** (${[batches.cpu.front, batches.cpu.redis, batches.cpu.worker, batches.cpu.mysql].map((x) => fixed(x, 1)).join(' + ')})`,
      COMMANDS.logBatches,
    ],
    [
      `CPU µs per event at ${int(settings.moderateRate)} events/s: batches of ${settings.batchSize} / single events (service)`,
      `${fixed(cpuPerEvent(r.batches.moderateBatch).service, 1)} / ${fixed(cpuPerEvent(r.batches.moderateSingle).service, 1)}`,
      COMMANDS.logBatches,
    ],
    ['presence propagation through the gateway: p50 / p99', `${fixed(med(r.propagation, (p) => p.p50Ms))} / ${fixed(med(r.propagation, (p) => p.p99Ms))} ms`, COMMANDS.full],
    ['Redis bytes per linked user', `${int(r.memory.keyBytesPerUser)} B`, COMMANDS.full],
    [`stream delivery to ${int(settings.streams.streams)} open streams: p50 / p99 (changes late)`, `${fixed(streams.p50, 1)} / **${fixed(streams.p99, 1)}** ms (${streams.late} of ${streams.changes} over ${settings.streams.lateMs} ms)`, COMMANDS.streams],
    ['front per open stream: RSS / live heap', `${bytes(streams.rss)} / ${bytes(streams.heap)}`, COMMANDS.streams],
    [`gateway RSS after resync, ${int(largest?.members ?? Number.NaN)} members`, bytes(largest?.rssBytes ?? Number.NaN), COMMANDS.full],
  ],
)}`
}

/** The whole of BENCHMARKS.md for one run. */
export function renderReport(r: BenchResults, settings: BenchSettings): string {
  const m = r.machine
  return `# Benchmarks

Generated by one run of ${COMMANDS.full} (tools/bench/bench.ts), started ${r.startedAt.toISOString()} and ${int(r.seconds)} s long: every figure in
this file comes from that run. Figures are **medians of ${settings.runs} runs** unless a section says otherwise. These machines are noisy: compare
ratios more than absolute numbers, and read the load average below.

${renderSummary(r, settings)}

## Machine

${machineTable(m)}

${renderLoadSection(r.load)}

## How it runs

- Command: ${COMMANDS.full} (= \`npm run build:tools && node dist/tools/bench/bench.js\`). ${COMMANDS.readPath} and ${COMMANDS.streams} run their
  section alone and print it (also to a file under /tmp); only ${COMMANDS.full} writes this file.
- Processes: \`node dist/src/cli.js front\` with \`FRONT_WORKERS=${settings.frontWorkers}\` and \`node dist/src/cli.js worker\`, \`RATE_LIMITS=off\`, \`LOG_LEVEL=warn\`,
  a fresh database \`pl_bench…\` and Redis prefix (both removed afterwards). The load generators (autocannon for the read path, wrk for single log events, node:http for batches) run on the same machine:
  on ${m.cores} cores it competes with the server for CPU, which is why the ceiling runs under the same conditions.
- Data: ${settings.linkedUsers} users with codes issued by the code service and bound through \`POST /api/v1/bind\`; their presences written with the presence store,
  activities rendered by \`renderActivityGroups\` (music with a game, a game with a custom status, a video, one naming the game platform that is filtered out, some offline).
- Gateway figures (tools/bench/measurements/gateway-*.ts, presence-propagation.ts): the Discord sandbox in the bench process, \`presence-link gateway\` and a front as child processes, on their own database and prefix.
- Stream figures (tools/bench/measurements/stream-delivery.ts): a front of their own per run, on its own database and prefix.
- Read-path load: autocannon, ${settings.connections} connections, pipelining ${settings.pipelining}, ${settings.loadSeconds} s per run after a ${settings.warmupSeconds} s warm-up; service and ceiling runs alternate.
  CPU columns: CPU time used during the run (from /proc) divided by its length; ${m.cores} cores means at most ${m.cores}.00 in all.

## Results

${renderReadPathSection(r.readPath, settings)}

${renderBindSection(r.bind, settings)}

${renderLogSection(r.log, settings)}

${renderBacklogSection(r.backlog)}

${renderBatchSection(r.batches, settings)}

${renderMemorySection(r.memory)}

${renderPropagationSection(r.propagation, settings)}

${renderGatewayMemorySection(r.gateway)}

${renderStreamsSection(r.streams, settings)}
`
}

/** What a partial run (`npm run bench:read-path`, `bench:streams`) reports. */
export interface PartialRun {
  /** The command, as COMMANDS names it. */
  command: string
  startedAt: Date
  seconds: number
  machine: Machine
  load: LoadTrace
  /** The sections it measured, rendered. */
  sections: readonly string[]
}

/** The report of a partial run: its sections with the machine and the load, and never a claim to be BENCHMARKS.md. */
export function renderPartialReport(p: PartialRun): string {
  return `# Benchmarks, partial run

A run of ${p.command} alone, started ${p.startedAt.toISOString()} and ${int(p.seconds)} s long. BENCHMARKS.md is written only by ${COMMANDS.full},
which measures these sections together with all the others in one run.

## Machine

${machineTable(p.machine)}

${renderLoadSection(p.load)}

## Results

${p.sections.join('\n\n')}
`
}

/** The batch figures the summary and the section share: medians over the peak runs, and CPU per stored event. */
export function batchMedians(b: BatchResults) {
  const per = b.peak.map(cpuPerEvent)
  const cpu = (pick: (p: ReturnType<typeof cpuPerEvent>) => number) => median(per.map(pick))
  return {
    accepted: med(b.peak, (r) => r.accepted / r.loadSeconds),
    stored: med(b.peak, storedPerSec),
    lost: b.peak.map((r) => r.lost),
    twice: b.peak.map((r) => r.twice),
    cpu: { front: cpu((p) => p.front), redis: cpu((p) => p.redis), worker: cpu((p) => p.worker), mysql: cpu((p) => p.mysql), service: cpu((p) => p.service), bench: cpu((p) => p.bench) },
  }
}

function cpuCells(p: ReturnType<typeof cpuPerEvent>): string[] {
  return [fixed(p.front, 1), fixed(p.redis, 1), fixed(p.worker, 1), fixed(p.mysql, 1), `**${fixed(p.service, 1)}**`, fixed(p.bench, 1)]
}

/** "Log events in batches": peak rates and the zero-loss check, then CPU per stored event per process at peak and at a moderate load. */
export function renderBatchSection(b: BatchResults, settings: BenchSettings): string {
  const m = batchMedians(b)
  return `### Log events in batches

Command: ${COMMANDS.full} (this section alone: ${COMMANDS.logBatches}). A front and a worker of their own with the default rate limits
(\`log=30/60\`, \`log_events=3000/60\`), the load's client addresses through a trusted proxy so that each stays within them (many game servers).
A load generator in the bench process (node:http, keep-alive; its cost per event is the last column) posts \`{"events": [...]}\` batches of ${settings.batchSize}
to \`POST /api/v1/log/server\` over ${settings.batchConnections} connections, as fast as they are answered, ${int(settings.batchEvents)} events per run after a run not counted;
the bench knows which requests were answered 200 and waits until MySQL holds every event of them (tools/bench/measurements/log-batch-ingest.ts).
Stored per second end to end: every stored event over the time from the first request until MySQL held the last. Lost: accepted events missing
from MySQL; twice: entries stored more than once.

${table(
  ['accepted/s (median)', 'stored/s end to end (median)', 'every run (stored/s)', 'lost, every run', 'stored twice, every run', 'rejected, every run'],
  [[int(m.accepted), `**${int(m.stored)}**`, b.peak.map((r) => int(storedPerSec(r))).join(', '), m.lost.join(', '), m.twice.join(', '), b.peak.map((r) => r.rejected).join(', ')]],
)}

CPU microseconds per stored event, by process (CPU time from /proc over the load and the drain, over the events stored; service = front workers + redis-server + worker + MySQL server).
The moderate rows are one run each at ${int(settings.moderateRate)} events a second for ${settings.moderateSeconds} s, paced (open loop), where the fixed costs per request and per job show:

${table(
  ['load', 'front workers', 'redis-server', 'worker', 'MySQL server', 'service', 'load generator'],
  [
    [`peak, batches of ${settings.batchSize} (median of the runs)`, ...[m.cpu.front, m.cpu.redis, m.cpu.worker, m.cpu.mysql].map((x) => fixed(x, 1)), `**${fixed(m.cpu.service, 1)}**`, fixed(m.cpu.bench, 1)],
    [`${int(settings.moderateRate)} events/s, batches of ${settings.batchSize}`, ...cpuCells(cpuPerEvent(b.moderateBatch))],
    [`${int(settings.moderateRate)} events/s, single events`, ...cpuCells(cpuPerEvent(b.moderateSingle))],
  ],
)}

Zero-loss check: ${[...b.peak, b.moderateBatch, b.moderateSingle].every((r) => r.lost === 0 && r.twice === 0) ? '**passed**: every accepted event was stored exactly once in every run' : '**FAILED**: see the lost and twice columns'}.`
}
