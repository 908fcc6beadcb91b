/**
 * `node dist/tools/bench/limiter-cost.js` (after `npm run build:tools`): the CPU one per-client rate-limit check
 * costs the process that makes it, apart from HTTP (issue 23). The limiter of src/redis/rate-limits.ts runs in this
 * process against the real Redis, on a scratch prefix: `--connections` loops each await one check after another for
 * `--seconds`, over `--clients` client addresses in turn (each within its budget), so most checks are answered from
 * spares and one per client and window waits for its count in Redis, as in the front. Prints checks per second, CPU
 * per check (this process: the limiter's own work, ioredis included) and script calls per check.
 *
 * Options: `--clients N` (30,000), `--connections N` (50), `--seconds N` (5), `--window S` (10: the contract's
 * callbacks window; shorter windows give more checks that open a window).
 */
import { parseArgs } from 'node:util'
import { DEFAULT_RATE_LIMITS } from '../../src/config.js'
import { createRateLimiter } from '../../src/redis/rate-limits.js'
import { createBenchLog, runMain, stopOnSignals } from '../harness/processes.js'
import { createScratch } from '../harness/scratch.js'
import { fixed, int } from '../harness/stats.js'
import { clientAddress } from './measurements/client-traffic.js'

const log = createBenchLog('limiter-cost')

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      clients: { type: 'string', default: '30000' },
      connections: { type: 'string', default: '50' },
      seconds: { type: 'string', default: '5' },
      window: { type: 'string', default: '10' },
    },
  })
  const clients = Number(values.clients)
  const connections = Number(values.connections)
  const seconds = Number(values.seconds)
  const limits = { ...DEFAULT_RATE_LIMITS, callbacks: { points: 100, seconds: Number(values.window) } }
  const scratch = await createScratch({ stem: 'benchrl', poolSize: 1, env: {} })
  try {
    const limiter = createRateLimiter(scratch.redis, scratch.ctx.keys, limits)
    const calls = async () => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await scratch.redis.info('commandstats'))?.[1] ?? 0)
    const callsBefore = await calls()
    let checks = 0
    let refused = 0
    const started = performance.now()
    const cpuBefore = process.cpuUsage()
    const until = started + seconds * 1000
    await Promise.all(
      Array.from({ length: connections }, async (_, c) => {
        for (let i = c; performance.now() < until; i += connections) {
          if (!(await limiter.check('callbacks', clientAddress(i % clients))).ok) refused++
          checks++
          // Let timers and sockets in now and then, as an HTTP front's event loop would.
          if (checks % 1024 === 0) await new Promise((resolve) => setImmediate(resolve))
        }
      }),
    )
    const cpu = process.cpuUsage(cpuBefore)
    const elapsed = (performance.now() - started) / 1000
    // The script calls of this process's checks (the shared Redis's other clients' calls are counted too).
    const scriptCalls = (await calls()) - callsBefore
    log(`${int(checks)} checks in ${fixed(elapsed)} s over ${int(clients)} clients, ${connections} at a time, ${values.window} s windows; refused ${refused}`)
    console.log(
      `checks per second ${int(checks / elapsed)}; CPU per check ${fixed((cpu.user + cpu.system) / checks)} µs; script calls per check ${fixed(scriptCalls / checks, 3)}`,
    )
  } finally {
    await scratch.remove()
  }
}

stopOnSignals(log)
runMain('limiter-cost', main)
