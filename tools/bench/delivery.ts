/**
 * Delivery benchmark, never part of `npm test`:
 * `npm run build:tools && node dist/tools/bench/delivery.js [ENTRIES] [RUNS]` (defaults 5,000 and 3). Runs the
 * measurement of tools/bench/measurements/delivery-throughput.ts and prints its table (the layout of docs/delivery.md's
 * "Measured" table). Removes what it made.
 */
import { createBenchLog, stopAll, stopOnSignals } from '../harness/processes.js'
import { measureDelivery, TRICKLE_PER_SECOND } from './measurements/delivery-throughput.js'
import { renderDelivery } from './report/render-delivery.js'

const entries = Number(process.argv[2] ?? 5000)
const runs = Number(process.argv[3] ?? 3)
if (!Number.isInteger(entries) || entries < 1 || !Number.isInteger(runs) || runs < 1) {
  process.stderr.write('usage: node dist/tools/bench/delivery.js [ENTRIES >= 1] [RUNS >= 1]\n')
  process.exit(64)
}

const log = createBenchLog('delivery-bench')
stopOnSignals(log)
try {
  process.stdout.write(renderDelivery(await measureDelivery(entries, runs, log), TRICKLE_PER_SECOND))
} finally {
  await stopAll()
}
