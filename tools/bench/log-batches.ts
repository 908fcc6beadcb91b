/**
 * `npm run bench:log-batches`: log ingestion in batches on its own, for comparing builds in one session. Starts the
 * real front and worker from dist/ on a scratch database and prefix (rate limits on at their defaults, many client
 * addresses through a trusted proxy, as many game servers), then measures with measurements/log-batch-ingest.ts:
 *
 * - peak: `--runs` runs of `--events` events in batches of `--batch` over `--connections` connections, as fast as
 *   they are answered: accepted and stored per second end to end, lost and stored twice, CPU per stored event per
 *   process;
 * - moderate: `--moderate-rate` events per second for `--moderate-seconds`, in batches of `--batch` and as single
 *   events: CPU per stored event per process, where the fixed costs per request and per job show.
 *
 * Options: `--runs N` (3), `--events N` (300,000), `--batch N` (100), `--connections N` (8), `--moderate-rate N`
 * (1,000), `--moderate-seconds N` (15), `--front-workers N` (1), `--only peak|moderate`.
 */
import { parseArgs } from 'node:util'
import { QueueName } from '../../src/queue/names.js'
import { closeHttp } from '../harness/http.js'
import { createBenchLog, runMain, stopAll, stopOnSignals } from '../harness/processes.js'
import { createScratch } from '../harness/scratch.js'
import { fixed, int, median, table } from '../harness/stats.js'
import { startBenchEnv, type BenchEnv } from './measurements/bench-env.js'
import { batchRun, cpuPerEvent, storedPerSec, type BatchLoad, type BatchRun } from './measurements/log-batch-ingest.js'

const log = createBenchLog('log-batches')

/** Events each proxied client address sends in one run: within the defaults (30 requests and 3,000 events a minute). */
const EVENTS_PER_CLIENT = 2000

function clientsFor(load: Omit<BatchLoad, 'clients'>): number {
  return Math.max(1, Math.ceil(Math.max(load.events / EVENTS_PER_CLIENT, load.events / load.batchSize / 25)))
}

/** The CPU table's rows: µs per stored event per process, the median over `runs`. */
function cpuRow(label: string, runs: readonly BatchRun[]): string[] {
  const per = runs.map(cpuPerEvent)
  const m = (pick: (p: ReturnType<typeof cpuPerEvent>) => number) => fixed(median(per.map(pick)), 1)
  return [label, m((p) => p.front), m((p) => p.redis), m((p) => p.worker), m((p) => p.mysql), m((p) => p.service), m((p) => p.bench)]
}

async function peak(env: BenchEnv, runs: number, load: Omit<BatchLoad, 'clients'>): Promise<BatchRun[]> {
  const out: BatchRun[] = []
  await batchRun(env, { ...load, events: Math.min(load.events, 20 * load.batchSize * load.connections), clients: clientsFor(load) }, 900)
  for (let run = 1; run <= runs; run++) {
    const r = await batchRun(env, { ...load, clients: clientsFor(load) }, run)
    out.push(r)
    const p = cpuPerEvent(r)
    log(
      `peak run ${run}: accepted ${int(r.accepted)} in ${fixed(r.loadSeconds)} s (${int(r.accepted / r.loadSeconds)}/s), stored ${int(r.stored)} ${fixed(r.drainSeconds)} s later (${int(storedPerSec(r))}/s end to end), lost ${r.lost}, twice ${r.twice}, rejected ${r.rejected}; µs/event front ${fixed(p.front, 1)} redis ${fixed(p.redis, 1)} worker ${fixed(p.worker, 1)} mysql ${fixed(p.mysql, 1)} = ${fixed(p.service, 1)}`,
    )
  }
  return out
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      events: { type: 'string', default: '300000' },
      batch: { type: 'string', default: '100' },
      connections: { type: 'string', default: '8' },
      'moderate-rate': { type: 'string', default: '1000' },
      'moderate-seconds': { type: 'string', default: '15' },
      'front-workers': { type: 'string', default: '1' },
      only: { type: 'string' },
    },
  })
  const scratch = await createScratch({
    stem: 'benchbatch',
    poolSize: 4,
    env: { FRONT_WORKERS: values['front-workers']!, ROBLOX_USERS_API: 'http://127.0.0.1:9', TRUST_PROXY: '127.0.0.1' },
  })
  try {
    const { env } = await startBenchEnv(scratch, { queues: [QueueName.Log], serverCpu: true })
    log(`front (FRONT_WORKERS=${values['front-workers']}) and worker up; default rate limits, client addresses through TRUST_PROXY=127.0.0.1`)
    const batchSize = Number(values.batch)
    const sections: string[] = []
    const cpuRows: string[][] = []
    if (values.only !== 'moderate') {
      const runs = await peak(env, Number(values.runs), { batchSize, connections: Number(values.connections), events: Number(values.events) })
      sections.push(
        `Peak, batches of ${batchSize}, ${values.connections} connections, ${int(Number(values.events))} events per run:`,
        '',
        table(
          ['accepted/s (median)', 'stored/s end to end (median)', 'every run (stored/s)', 'lost, every run', 'stored twice, every run', 'rejected, every run'],
          [[int(median(runs.map((r) => r.accepted / r.loadSeconds))), int(median(runs.map(storedPerSec))), runs.map((r) => int(storedPerSec(r))).join(', '), runs.map((r) => r.lost).join(', '), runs.map((r) => r.twice).join(', '), runs.map((r) => r.rejected).join(', ')]],
        ),
        '',
      )
      cpuRows.push(cpuRow(`peak, batches of ${batchSize}`, runs))
    }
    if (values.only !== 'peak') {
      const rate = Number(values['moderate-rate'])
      const events = rate * Number(values['moderate-seconds'])
      for (const size of [batchSize, 1]) {
        const load = { batchSize: size, connections: size === 1 ? 16 : 4, events, ratePerSec: rate }
        const r = await batchRun(env, { ...load, clients: clientsFor(load) }, size === 1 ? 801 : 802)
        log(`moderate, ${size === 1 ? 'single events' : `batches of ${size}`}: ${int(r.accepted)} accepted in ${fixed(r.loadSeconds)} s, lost ${r.lost}, twice ${r.twice}, rejected ${r.rejected}`)
        cpuRows.push(cpuRow(`${int(rate)} events/s, ${size === 1 ? 'single events' : `batches of ${size}`}`, [r]))
      }
    }
    sections.push('CPU microseconds per stored event (medians over the runs):', '', table(['load', 'front workers', 'redis-server', 'worker', 'MySQL server', 'service (sum)', 'bench (load generator)'], cpuRows))
    console.log(['', ...sections].join('\n'))
  } finally {
    await stopAll()
    closeHttp()
    await scratch.remove()
  }
}

stopOnSignals(log)
runMain('log-batches', main)
