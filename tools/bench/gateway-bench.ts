/**
 * Gateway benchmarks alone, never part of `npm test`:
 * `npm run build:tools && node dist/tools/bench/gateway-bench.js [updates] [members,...]` (defaults 1000 and 0,10000). Presence propagation over `updates` updates, then the gateway's RSS after resync at
 * each member count, each on a world of its own (tools/bench/measurements/); prints one JSON line per result.
 */
import { createBenchLog, stopAll, stopOnSignals } from '../harness/processes.js'
import { measureGatewayMemory } from './measurements/gateway-memory.js'
import { measurePresencePropagation } from './measurements/presence-propagation.js'

const updates = Number(process.argv[2] ?? 1000)
const counts = (process.argv[3] ?? '0,10000').split(',').map(Number)
if (!Number.isInteger(updates) || updates < 1 || counts.some((n) => !Number.isInteger(n) || n < 0)) {
  process.stderr.write('usage: node dist/tools/bench/gateway-bench.js [UPDATES >= 1] [MEMBERS,...]\n')
  process.exit(64)
}

stopOnSignals(createBenchLog('gateway-bench'))
try {
  console.log(JSON.stringify({ propagation: await measurePresencePropagation(updates) }))
  for (const n of counts) console.log(JSON.stringify({ memory: await measureGatewayMemory(n) }))
} finally {
  await stopAll()
}
