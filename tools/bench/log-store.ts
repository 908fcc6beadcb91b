/**
 * `npm run bench:log-store`: the storing half of log ingestion on its own (measurements/log-backlog.ts), the section
 * "Log events: a backlog stored" of `npm run bench`. Starts the real front and worker from dist/ on a scratch database
 * and prefix, stores a backlog of 5,000 events not counted, then `--runs` backlogs, and prints each run and the
 * section as BENCHMARKS.md has it (stored events per second, CPU microseconds per stored event of the worker, the
 * MySQL server when it is local, and Redis). No front or load generator works while the backlog drains, so the
 * figures move less than log-ingest.js's, which makes it the one to compare worker builds with.
 *
 * Options: `--runs N` (3), `--events N` (60,000 per run), `--batch N` (BACKLOG_BATCH, 30).
 */
import { parseArgs } from 'node:util'
import { QueueName } from '../../src/queue/names.js'
import { closeHttp } from '../harness/http.js'
import { createBenchLog, runMain, stopAll, stopOnSignals } from '../harness/processes.js'
import { createScratch } from '../harness/scratch.js'
import { fixed, int } from '../harness/stats.js'
import { startBenchEnv } from './measurements/bench-env.js'
import { BACKLOG_BATCH, backlogRun, type BacklogRun } from './measurements/log-backlog.js'
import { WARMUP_EVENTS } from './measurements/log-accept-store.js'
import { renderBacklogSection } from './report/render-report.js'

const log = createBenchLog('log-store')

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      events: { type: 'string', default: '60000' },
      batch: { type: 'string', default: String(BACKLOG_BATCH) },
    },
  })
  const events = Number(values.events)
  const batch = Number(values.batch)
  const scratch = await createScratch({ stem: 'benchstore', poolSize: 4, env: { FRONT_WORKERS: '1', ROBLOX_USERS_API: 'http://127.0.0.1:9', RATE_LIMITS: 'off' } })
  try {
    const { env: bench } = await startBenchEnv(scratch, { queues: [QueueName.Log], serverCpu: true })
    await backlogRun(bench, Math.min(WARMUP_EVENTS, events), batch)
    const runs: BacklogRun[] = []
    for (let run = 1; run <= Number(values.runs); run++) {
      const r = await backlogRun(bench, events, batch)
      runs.push(r)
      log(`run ${run}: ${int(events)} events in batches of ${batch} stored in ${fixed(r.seconds)} s (${int(events / r.seconds)}/s)`)
    }
    // The same section as BENCHMARKS.md's, from the same renderer.
    console.log(`\n${renderBacklogSection(runs)}`)
  } finally {
    await stopAll()
    closeHttp()
    await scratch.remove()
  }
}

stopOnSignals(log)
runMain('log-store', main)
