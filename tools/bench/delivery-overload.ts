/**
 * A category getting more events than its chat destination can show, never part of `npm test`:
 * `npm run build:tools && node dist/tools/bench/delivery-overload.js [RATE] [SECONDS] [channel|webhook] [DRAIN_SECONDS]`
 * (defaults 200 events a second for 60 s to a channel, 120 s to drain). Runs tools/bench/measurements/delivery-overload.ts
 * and prints the backlog every 5 s and the totals (docs/delivery.md, "Under volume"). Removes what it made.
 * Service settings come from the environment (say `DELIVERY_DIGEST_BACKLOG=0 DELIVERY_DIGEST_AFTER_MS=0` for no digests).
 */
import { createBenchLog, stopAll, stopOnSignals } from '../harness/processes.js'
import { measureOverload } from './measurements/delivery-overload.js'
import { renderOverload } from './report/render-overload.js'

const rate = Number(process.argv[2] ?? 200)
const seconds = Number(process.argv[3] ?? 60)
const destination = process.argv[4] ?? 'channel'
const drainSeconds = Number(process.argv[5] ?? 120)
if (![rate, seconds, drainSeconds].every((n) => Number.isInteger(n) && n >= 1) || (destination !== 'channel' && destination !== 'webhook')) {
  process.stderr.write('usage: node dist/tools/bench/delivery-overload.js [RATE >= 1] [SECONDS >= 1] [channel|webhook] [DRAIN_SECONDS >= 1]\n')
  process.exit(64)
}

const log = createBenchLog('delivery-overload')
stopOnSignals(log)
try {
  process.stdout.write(renderOverload(await measureOverload({ rate, seconds, destination, drainSeconds }, log)))
} finally {
  await stopAll()
}
