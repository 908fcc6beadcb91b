/**
 * `npm run bench:log-batches`: log ingestion in batches on its own (the section "Log events in batches" of
 * `npm run bench`), for comparing builds in one session. Starts the real front and worker from dist/ on a scratch
 * database and prefix (rate limits on at their defaults, many client addresses through a trusted proxy, as many game
 * servers), runs measurements/log-batch-ingest.ts (peak runs, then the moderate load in batches and as single
 * events) and prints the section as BENCHMARKS.md has it.
 *
 * Options: `--runs N` (3), `--events N` (300,000 per peak run), `--batch N` (100), `--connections N` (8),
 * `--moderate-rate N` (1,000 events a second), `--moderate-seconds N` (15), `--front-workers N` (1).
 */
import { parseArgs } from 'node:util'
import { closeHttp } from '../harness/http.js'
import { createBenchLog, runMain, stopAll, stopOnSignals } from '../harness/processes.js'
import { createScratch } from '../harness/scratch.js'
import { batchEnvOf, startBatchEnv } from './measurements/bench-env.js'
import { measureBatches } from './measurements/log-batch-ingest.js'
import { renderBatchSection } from './report/render-report.js'
import { SETTINGS } from './settings.js'

const log = createBenchLog('log-batches')

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: String(SETTINGS.runs) },
      events: { type: 'string', default: String(SETTINGS.batchEvents) },
      batch: { type: 'string', default: String(SETTINGS.batchSize) },
      connections: { type: 'string', default: String(SETTINGS.batchConnections) },
      'moderate-rate': { type: 'string', default: String(SETTINGS.moderateRate) },
      'moderate-seconds': { type: 'string', default: String(SETTINGS.moderateSeconds) },
      'front-workers': { type: 'string', default: String(SETTINGS.frontWorkers) },
    },
  })
  const settings = {
    ...SETTINGS,
    runs: Number(values.runs),
    batchEvents: Number(values.events),
    batchSize: Number(values.batch),
    batchConnections: Number(values.connections),
    moderateRate: Number(values['moderate-rate']),
    moderateSeconds: Number(values['moderate-seconds']),
    frontWorkers: Number(values['front-workers']),
  }
  const scratch = await createScratch({ stem: 'benchbatch', poolSize: 4, env: batchEnvOf(settings.frontWorkers) })
  try {
    const env = await startBatchEnv(scratch)
    log(`front (FRONT_WORKERS=${settings.frontWorkers}) and worker up; default rate limits, client addresses through TRUST_PROXY=127.0.0.1`)
    const results = await measureBatches(env, settings, log)
    console.log(`\n${renderBatchSection(results, settings)}`)
  } finally {
    await stopAll()
    closeHttp()
    await scratch.remove()
  }
}

stopOnSignals(log)
runMain('log-batches', main)
