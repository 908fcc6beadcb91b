/**
 * `npm run bench:streams`: the streams section of BENCHMARKS.md alone (measurements/stream-delivery.ts), RUNS runs
 * (3 by default) each on a world and front of its own. Prints a partial report (also written to
 * /tmp/presence-link-bench/streams.md, with every run's figures in streams.json) and never touches BENCHMARKS.md. The shape can be changed for an experiment:
 *
 *   STREAMS=10000 CODES_PER_STREAM=50 CODES=2000 UPDATES=40 RUNS=3 PER_UPDATE=1 npm run bench:streams
 *
 * Service variables set here (STREAM_HEARTBEAT_MS, ...) reach the front too. PER_UPDATE=1 logs every change's
 * deliveries and what overlapped it; HEAP_SNAPSHOT=/tmp/x writes a heap snapshot of the front worker with its streams
 * open to /tmp/x.<run>.heapsnapshot.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { createBenchLog, runMain, stopAll, stopOnSignals } from '../harness/processes.js'
import { createScratch } from '../harness/scratch.js'
import { fixed } from '../harness/stats.js'
import { measureStreamDelivery, type StreamRun } from './measurements/stream-delivery.js'
import { describeMachine } from './report/describe-machine.js'
import { startLoadTrace } from './report/load-trace.js'
import { COMMANDS, renderPartialReport, renderStreamsSection } from './report/render-report.js'
import { SETTINGS, type BenchSettings } from './settings.js'

const ROOT = new URL('../../../', import.meta.url)
const OUT_DIR = '/tmp/presence-link-bench'
const log = createBenchLog('streams')

function numberFrom(name: string, fallback: number): number {
  const raw = process.env[name]
  const n = Number(raw ?? fallback)
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of at least 1 (got ${raw})`)
  return n
}

async function main(): Promise<void> {
  const startedAt = new Date()
  const load = await startLoadTrace()
  const defaults = SETTINGS.streams
  const settings: BenchSettings = {
    ...SETTINGS,
    streams: {
      ...defaults,
      streams: numberFrom('STREAMS', defaults.streams),
      codesPerStream: numberFrom('CODES_PER_STREAM', defaults.codesPerStream),
      codes: numberFrom('CODES', defaults.codes),
      updates: numberFrom('UPDATES', defaults.updates),
    },
  }
  const runs = numberFrom('RUNS', SETTINGS.runs)
  const probe = await createScratch({ stem: 'streamsm', poolSize: 1 })
  const machine = await describeMachine(probe.db, probe.redis, ROOT).finally(() => probe.remove())
  load.section('streams')
  const results: StreamRun[] = []
  for (let run = 1; run <= runs; run++) {
    const snapshot = process.env.HEAP_SNAPSHOT
    const r = await measureStreamDelivery(settings.streams, log, snapshot === undefined || snapshot === '' ? {} : { heapSnapshot: `${snapshot}.${run}.heapsnapshot` })
    results.push(r)
    if (process.env.PER_UPDATE) {
      for (const u of r.updates) log(`change ${u.n}: write acknowledged after ${fixed(u.writeAckMs, 1)} ms; ${u.deliveries} deliveries, first ${fixed(u.firstMs, 1)} ms, last ${fixed(u.lastMs, 1)} ms`)
      for (const l of r.late) log(`late change ${l.n}: ${JSON.stringify(l)}`)
    }
    log(`run ${run}: ${r.deliveries}/${r.expected} deliveries, p50 ${fixed(r.p50Ms, 1)} ms, p99 ${fixed(r.p99Ms, 1)} ms, max ${fixed(r.maxMs, 1)} ms, ${r.late.length} changes late`)
  }
  const seconds = (Date.now() - startedAt.getTime()) / 1000
  const report = renderPartialReport({ command: COMMANDS.streams, startedAt, seconds, machine, load: await load.stop(), sections: [renderStreamsSection(results, settings)] })
  console.log(report)
  await mkdir(OUT_DIR, { recursive: true })
  await writeFile(`${OUT_DIR}/streams.md`, report)
  await writeFile(`${OUT_DIR}/streams.json`, `${JSON.stringify({ settings: settings.streams, runs: results }, null, 1)}\n`)
  log(`wrote ${OUT_DIR}/streams.md and streams.json (every run's timelines)`)
}

stopOnSignals(log)
runMain('streams', async () => {
  try {
    await main()
  } finally {
    await stopAll()
  }
})
