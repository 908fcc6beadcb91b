/**
 * The BENCHMARKS.md writer: a pure function from the run's figures and settings to the markdown, one function per
 * results section. The column meanings are the contract with readers comparing runs: change them only on purpose.
 */
import type { BindRun } from '../measurements/bind-rate.js'
import type { Comparison, LoadRun } from '../measurements/ceiling-comparison.js'
import type { GatewayMemoryResult } from '../measurements/gateway-memory.js'
import type { LogRun } from '../measurements/log-accept-store.js'
import type { PropagationResult } from '../measurements/presence-propagation.js'
import type { MemoryResult } from '../measurements/redis-memory.js'
import type { BenchSettings } from '../settings.js'
import { bytes, fixed, int, median, table } from '../../harness/stats.js'
import type { Machine } from './describe-machine.js'

/** Everything one `npm run bench` run measured. */
export interface BenchResults {
  startedAt: Date
  /** Length of the whole run. */
  seconds: number
  machine: Machine
  callbacks: Comparison
  rpc: Comparison
  bind: BindRun[]
  log: LogRun[]
  memory: MemoryResult
  propagation: PropagationResult[]
  gateway: GatewayMemoryResult[]
}

/** "Callbacks/RPC, N codes per request": the front against the ceiling, medians over the runs. */
export function renderComparisonSection(title: string, c: Comparison, settings: BenchSettings): string {
  const med = (runs: LoadRun[], f: (r: LoadRun) => number) => median(runs.map(f))
  const s = med(c.service, (r) => r.reqPerSec)
  const ceil = med(c.ceiling, (r) => r.reqPerSec)
  const codes = settings.linkedUsers
  const row = (name: string, runs: LoadRun[], server: string, ratio: string) => [
    name,
    int(med(runs, (r) => r.reqPerSec)),
    int(med(runs, (r) => r.reqPerSec) * codes),
    fixed(med(runs, (r) => r.p50), 0),
    fixed(med(runs, (r) => r.p99), 0),
    ratio,
    server,
    fixed(med(runs, (r) => r.loadCores)),
  ]
  return [
    `### ${title}`,
    '',
    `GET \`/api/v1/${c.route}/{${codes} codes}\`, response body ${int(c.bodyBytes)} bytes; the ceiling answers the same body from memory.`,
    '',
    table(
      ['target', 'req/s', 'codes/s', 'p50 ms', 'p99 ms', 'ratio to ceiling', 'server CPU (cores)', 'autocannon CPU (cores)'],
      [
        row(
          `presence-link front (FRONT_WORKERS=${settings.frontWorkers})`,
          c.service,
          `${fixed(med(c.service, (r) => r.serverCores))} front + ${fixed(med(c.service, (r) => r.redisCores))} Redis`,
          fixed(s / ceil, 2),
        ),
        row('ceiling: plain hyper-express, precomputed body', c.ceiling, fixed(med(c.ceiling, (r) => r.serverCores)), '1.00'),
      ],
    ),
    '',
    `Runs (service / ceiling req/s): ${c.service.map((r, i) => `${int(r.reqPerSec)} / ${int(c.ceiling[i]!.reqPerSec)}`).join('; ')}.`,
  ].join('\n')
}

/** "Bind at a fixed rate": latency medians, the worst maximum, and bound/sent of every run. */
export function renderBindSection(bind: readonly BindRun[], settings: BenchSettings): string {
  return `### Bind at a fixed rate

${settings.bindRate} requests/s for ${settings.bindSeconds} s per run, each with a fresh code and a new account (open loop: latency counts from each request's due time).
The bind goes front → BullMQ → worker (MySQL transaction, Redis write-through) → back to the waiting front.

${table(
  ['p50 ms (median)', 'p99 ms (median)', 'worst max ms', 'bound / sent (every run)'],
  [[fixed(median(bind.map((b) => b.p50))), fixed(median(bind.map((b) => b.p99))), fixed(Math.max(...bind.map((b) => b.max))), bind.map((b) => `${b.bound}/${b.sent}`).join(', ')]],
)}`
}

/** "Log events: accepted, then stored": rates, drain time, and the zero-loss check over every run. */
export function renderLogSection(logs: readonly LogRun[], settings: BenchSettings): string {
  const lost = logs.map((l) => l.accepted - l.stored)
  return `### Log events: accepted, then stored

autocannon posts ${int(settings.logEvents)} events to \`POST /api/v1/log/server\` per run over ${settings.logConnections} connections, as fast as they are accepted;
then the bench waits until MySQL holds every accepted (200) event and checks that the stored count equals the accepted count.

${table(
  ['accepted/s (median)', 'drain after load, s (median)', 'stored/s end to end (median)', 'lost (accepted − stored), every run', 'rejected'],
  [
    [
      int(median(logs.map((l) => l.acceptedPerSec))),
      fixed(median(logs.map((l) => l.drainSeconds))),
      int(median(logs.map((l) => l.stored / (l.loadSeconds + l.drainSeconds)))),
      lost.join(', '),
      logs.map((l) => l.rejected).join(', '),
    ],
  ],
)}

Zero-loss check: ${lost.every((n) => n === 0) ? '**passed**: every accepted event was stored exactly once in every run' : '**FAILED**: see the lost column'}.
Runs (accepted events): ${logs.map((l) => int(l.accepted)).join(', ')}.`
}

/** "Memory": Redis bytes per linked user, two ways. */
export function renderMemorySection(memory: MemoryResult): string {
  return `### Memory

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

The sandbox sends a PRESENCE_UPDATE for a linked user; the clock stops when \`GET /api/v1/callbacks/{code}\` (polled back to back) shows the new activity.
Path: sandbox gateway socket → discord.js in \`presence-link gateway\` → Redis presence hash → front. ${settings.propagationUpdates} updates per run (tools/bench/gateway-bench.ts).

${table(
  ['p50 ms (median)', 'p99 ms (median)', 'worst max ms', 'one callbacks GET p50 ms (the polling floor)'],
  [[fixed(median(propagation.map((p) => p.p50Ms))), fixed(median(propagation.map((p) => p.p99Ms))), fixed(Math.max(...propagation.map((p) => p.maxMs))), fixed(median(propagation.map((p) => p.callbacksGetP50Ms)))]],
)}`
}

/** "Gateway memory": one row per member count. */
export function renderGatewayMemorySection(gateway: readonly GatewayMemoryResult[]): string {
  return `### Gateway memory

A real \`presence-link gateway\` process after its resync, every member online with a presence and holding a code (one run per size).

${table(
  ['members', 'gateway RSS', 'resync time, s'],
  gateway.map((g) => [int(g.members), bytes(g.rssBytes), fixed(g.resyncSeconds)]),
)}`
}

/** The whole of BENCHMARKS.md for one run. */
export function renderReport(r: BenchResults, settings: BenchSettings): string {
  const m = r.machine
  return `# Benchmarks

Generated by \`npm run bench\` (tools/bench/bench.ts) on ${r.startedAt.toISOString()}; the whole run took ${int(r.seconds)} s.
Figures are **medians of ${settings.runs} runs**. These machines are noisy: compare ratios more than absolute numbers.

## Machine

${table(
  ['what', 'value'],
  [
    ['CPU', `${m.cpu}, ${m.cores} cores`],
    ['memory', m.memory],
    ['load average when the run began (1, 5, 15 min)', m.load],
    ['OS', m.os],
    ['Node', m.node],
    ['Redis', m.redis],
    ['MySQL server', m.mysql],
    ...m.packages.map(([name, version]): [string, string] => [name, version]),
  ],
)}

## How it runs

- Command: \`npm run bench\` (= \`npm run build:tools && node dist/tools/bench/bench.js\`).
- Processes: \`node dist/src/cli.js front\` with \`FRONT_WORKERS=${settings.frontWorkers}\` and \`node dist/src/cli.js worker\`, \`RATE_LIMITS=off\`, \`LOG_LEVEL=warn\`,
  a fresh database \`pl_bench…\` and Redis prefix (both removed afterwards). The load generator (autocannon) runs in the bench process on the same machine:
  on ${m.cores} cores it competes with the server for CPU, which is why the ceiling runs under the same conditions.
- Data: ${settings.linkedUsers} users with codes issued by the code service and bound through \`POST /api/v1/bind\`; their presences written with the presence store,
  activities rendered by \`renderActivityGroups\` (music with a game, a game with a custom status, a video, one naming the game platform that is filtered out, some offline).
- Gateway figures (tools/bench/gateway-bench.ts): the Discord sandbox in the bench process, \`presence-link gateway\` and a front as child processes, on their own database and prefix.
- Load: autocannon, ${settings.connections} connections, pipelining ${settings.pipelining}, ${settings.loadSeconds} s per run after a ${settings.warmupSeconds} s warm-up; service and ceiling runs alternate.
  autocannon reports latency in whole milliseconds. CPU columns: CPU time used during the run (from /proc) divided by its length, for the
  front's cluster worker and redis-server, or for the ceiling process, and for autocannon itself; ${m.cores} cores means at most ${m.cores}.00 in all.

## Results

${renderComparisonSection('Callbacks, 50 codes per request', r.callbacks, settings)}

${renderComparisonSection('RPC, 50 codes per request', r.rpc, settings)}

${renderBindSection(r.bind, settings)}

${renderLogSection(r.log, settings)}

${renderMemorySection(r.memory)}

${renderPropagationSection(r.propagation, settings)}

${renderGatewayMemorySection(r.gateway)}
`
}
