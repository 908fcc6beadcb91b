/**
 * `node dist/tools/bench/log-ingest.js` (after `npm run build:tools`): the log ingestion measurement of
 * `npm run bench` on its own, for comparing builds in one session. Starts the real front and worker from dist/ on a
 * scratch database and prefix, runs measurements/log-accept-store.ts `--runs` times, and prints each run, the medians
 * and where the CPU went during the load (front workers, Redis, the worker, the MySQL server when it is local, the load
 * generator, the whole machine), in seconds per run and in microseconds per accepted event. After each run the same
 * load goes to the ceiling (tools/bench/ceiling-app.ts: reads and parses each body, answers the front's own 200), and
 * the accepted rate is given as a ratio to it.
 *
 * Options: `--runs N` (3), `--seconds N` (5 per run, wrk), `--connections N` (100), `--front-workers N` (1),
 * `--clients proxied|one` (proxied: rate limits on at the contract's values and many client addresses through a
 * trusted proxy; one: one address, rate limits off), `--hold-storing` (the log queue paused during each load and
 * resumed after it: the accept path alone, as when workers and MySQL run on other machines; the drain stores it all).
 * `BENCH_CPU_PROF=DIR` writes a CPU profile of every started process into DIR (tools/harness/processes.ts).
 */
import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { QueueName } from '../../src/queue/names.js'
import { closeHttp } from '../harness/http.js'
import { cpuMeter, cpuSeconds } from '../harness/proc-sampler.js'
import { createBenchLog, runMain, stopAll, stopOnSignals } from '../harness/processes.js'
import { createScratch } from '../harness/scratch.js'
import { fixed, int, median, table } from '../harness/stats.js'
import { startBenchEnv } from './measurements/bench-env.js'
import { startCeiling } from './measurements/ceiling-comparison.js'
import { logAnswer, logCeilingRun, logRun, lostOf, warmUpLogCeiling, warmUpLogs, type LogRun } from './measurements/log-accept-store.js'
import { logMedians } from './report/render-report.js'
import { SETTINGS } from './settings.js'

const log = createBenchLog('log-ingest')

/** Busy CPU seconds of the whole machine so far (all cores), from /proc/stat. */
async function machineBusySeconds(): Promise<number> {
  const fields = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0)
  return (fields.reduce((a, b) => a + b, 0) - idle) / 100
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: String(SETTINGS.runs) },
      seconds: { type: 'string', default: '5' },
      connections: { type: 'string', default: '100' },
      'front-workers': { type: 'string', default: '1' },
      clients: { type: 'string', default: 'proxied' },
      'hold-storing': { type: 'boolean', default: false },
    },
  })
  const proxied = values.clients === 'proxied'
  const holdStoring = values['hold-storing'] === true
  const settings = { ...SETTINGS, logSeconds: Number(values.seconds), logConnections: Number(values.connections) }
  const env: Record<string, string> = proxied ? { RATE_LIMITS: 'log=30/60', TRUST_PROXY: '127.0.0.1' } : { RATE_LIMITS: 'off' }
  const scratch = await createScratch({
    stem: 'benchlog',
    poolSize: 4,
    env: { FRONT_WORKERS: values['front-workers']!, ROBLOX_USERS_API: 'http://127.0.0.1:9', ...env },
  })
  try {
    const { env: bench, ceilingPort } = await startBenchEnv(scratch, { queues: [QueueName.Log], serverCpu: true })
    const none = { text: '', headers: {} }
    bench.ceilingPid = (await startCeiling(ceilingPort, { callbacks: none, rpc: none, log: await logAnswer(bench) })).pid
    log(`front (FRONT_WORKERS=${values['front-workers']}) and worker up; ${proxied ? 'rate limits on (log=30/60), client addresses through TRUST_PROXY=127.0.0.1' : 'rate limits off, one client address'}`)
    await warmUpLogs(bench, settings, { proxied })
    await warmUpLogCeiling(bench, settings, { proxied })
    // Per run: the ceiling server's CPU microseconds per event, in its run right after the service's.
    const ceilingCpu: number[] = []
    const runs: LogRun[] = []
    const cpu: string[][] = []
    // CPU microseconds per accepted event, per run, in the order of `used`.
    const perEvent: number[][] = []
    for (let run = 1; run <= Number(values.runs); run++) {
      const front = await cpuMeter(await bench.frontWorkerPids())
      const before = {
        redis: await cpuSeconds(bench.redisPid ?? 0),
        worker: await cpuSeconds(bench.workerPid),
        mysql: await cpuSeconds(bench.mysqlPid ?? 0),
        self: process.cpuUsage(),
        machine: await machineBusySeconds(),
      }
      const started = Date.now()
      const r = await logRun(bench, settings, run, { proxied, holdStoring })
      const seconds = (Date.now() - started) / 1000
      const self = process.cpuUsage(before.self)
      const used = [
        await front.spent(),
        (await cpuSeconds(bench.redisPid ?? 0)) - before.redis,
        (await cpuSeconds(bench.workerPid)) - before.worker,
        (await cpuSeconds(bench.mysqlPid ?? 0)) - before.mysql,
        (self.user + self.system) / 1e6 + (r.generatorCpuSeconds ?? Number.NaN),
        (await machineBusySeconds()) - before.machine,
      ]
      cpu.push([String(run), ...used.map((s) => fixed(s)), fixed(seconds)])
      perEvent.push(used.map((s) => (s * 1e6) / r.accepted))
      runs.push(r)
      const ceilingBefore = await cpuSeconds(bench.ceilingPid)
      const perSec = await logCeilingRun(bench, settings, run, { proxied })
      ceilingCpu.push((((await cpuSeconds(bench.ceilingPid)) - ceilingBefore) * 1e6) / (perSec * settings.logSeconds))
      r.ceilingPerSec = perSec
      log(
        `run ${run}: accepted ${int(r.accepted)} in ${fixed(r.loadSeconds)} s (${int(r.acceptedPerSec)}/s; the ceiling ${int(perSec)}/s), stored ${int(r.stored)} (${int(r.distinct ?? Number.NaN)} distinct) ${fixed(r.drainSeconds)} s later: ${int(r.stored / (r.loadSeconds + r.drainSeconds))}/s end to end, rejected ${r.rejected}`,
      )
    }
    // The ceiling's median and the ratios, as BENCHMARKS.md computes them.
    const vsCeiling = logMedians(runs)
    const lost = runs.map(lostOf)
    const twice = runs.map((r) => r.stored - (r.distinct ?? r.stored))
    console.log(
      [
        '',
        table(
          ['accepted/s (median)', 'stored/s end to end (median)', 'drain after load, s (median)', 'lost, every run', 'stored twice, every run', 'rejected, every run'],
          [
            [
              int(median(runs.map((r) => r.acceptedPerSec))),
              int(median(runs.map((r) => r.stored / (r.loadSeconds + r.drainSeconds)))),
              fixed(median(runs.map((r) => r.drainSeconds))),
              lost.join(', '),
              twice.join(', '),
              runs.map((r) => r.rejected).join(', '),
            ],
          ],
        ),
        '',
        'The ceiling (a plain hyper-express server that reads and parses each body and answers the front\'s own 200), under the same load right after each run:',
        '',
        table(
          ['ceiling answered/s (median)', 'accepted / ceiling (median of the runs)', 'every run', 'ceiling server µs of CPU per event (median)'],
          [
            [
              int(vsCeiling.ceiling ?? Number.NaN),
              fixed(vsCeiling.ratio ?? Number.NaN),
              (vsCeiling.ratios ?? []).map((x) => fixed(x)).join(', '),
              fixed(median(ceilingCpu), 1),
            ],
          ],
        ),
        '',
        'CPU seconds used during each run (load and drain):',
        '',
        table(['run', 'front workers', 'redis-server', 'worker', 'MySQL server', 'bench and wrk', 'whole machine', 'run seconds'], cpu),
        '',
        'CPU microseconds per accepted event (median over the runs):',
        '',
        table(
          ['front workers', 'redis-server', 'worker', 'MySQL server', 'bench and wrk', 'whole machine'],
          [perEvent[0]!.map((_, i) => fixed(median(perEvent.map((p) => p[i]!)), 1))],
        ),
        '',
        `Zero-loss check: ${lost.every((n) => n === 0) && twice.every((n) => n === 0) ? 'passed' : 'FAILED'}.`,
      ].join('\n'),
    )
  } finally {
    await stopAll()
    closeHttp()
    await scratch.remove()
  }
}

stopOnSignals(log)
runMain('log-ingest', main)
