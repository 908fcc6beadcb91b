/**
 * `npm run bench:bind`: bind at a fixed rate on its own (the section "Bind at a fixed rate" of `npm run bench`), with
 * where the time goes: the median of each phase of a bind, read from its job's own times. Starts the real front and
 * worker from dist/ on a scratch database and prefix (rate limits off).
 *
 * Options: `--runs N` (3), `--rate N` (100 binds a second), `--seconds N` (10).
 */
import { parseArgs } from 'node:util'
import { QueueName } from '../../src/queue/names.js'
import { createQueue } from '../../src/queue/queues.js'
import { closeHttp } from '../harness/http.js'
import { issueFresh } from '../harness/issue-fresh.js'
import { createBenchLog, runMain, stopAll, stopOnSignals } from '../harness/processes.js'
import { createScratch } from '../harness/scratch.js'
import { fixed, median, table } from '../harness/stats.js'
import { startBenchEnv } from './measurements/bench-env.js'
import { bindAtFixedRate, bindPhases, type BindPhases, type BindRun } from './measurements/bind-rate.js'
import { SETTINGS } from './settings.js'

const log = createBenchLog('bind')

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: String(SETTINGS.runs) }, rate: { type: 'string', default: String(SETTINGS.bindRate) }, seconds: { type: 'string', default: String(SETTINGS.bindSeconds) } } })
  const settings = { ...SETTINGS, bindRate: Number(values.rate), bindSeconds: Number(values.seconds) }
  const scratch = await createScratch({ stem: 'benchbind', poolSize: 4, env: { FRONT_WORKERS: '1', ROBLOX_USERS_API: 'http://127.0.0.1:9', RATE_LIMITS: 'off' } })
  const queue = createQueue(QueueName.Bind, scratch.redis, scratch.ctx.keys.bullPrefix)
  try {
    const { env } = await startBenchEnv(scratch, { queues: [QueueName.Bind], serverCpu: false })
    const perRun = settings.bindRate * settings.bindSeconds
    // Not counted: the first binds warm up the pools, the JIT and the worker's wait for jobs.
    await bindAtFixedRate(env, { ...settings, bindSeconds: 2 }, await issueFresh(env.codes, 2 * settings.bindRate, 610_000_000_000_000_000n), 99)
    const runs: BindRun[] = []
    const phases: BindPhases[] = []
    for (let run = 1; run <= Number(values.runs); run++) {
      const b = await bindAtFixedRate(env, settings, await issueFresh(env.codes, perRun, 620_000_000_000_000_000n + BigInt(run) * 1_000_000n), run)
      const p = await bindPhases(queue, run)
      runs.push(b)
      phases.push(p)
      log(`run ${run}: p50 ${fixed(b.p50)} ms, p99 ${fixed(b.p99)} ms, bound ${b.bound}/${b.sent}; phases (median ms): queued ${fixed(p.toQueued)}, taken ${fixed(p.toTaken)}, worked ${fixed(p.working)}, answered ${fixed(p.toAnswered)}`)
    }
    const m = (pick: (p: BindPhases) => number) => fixed(median(phases.map(pick)))
    console.log(
      [
        '',
        table(
          ['p50 ms (median)', 'p99 ms (median)', 'bound / sent', 'to queued', 'to taken by a worker', 'worker', 'to answered'],
          [[fixed(median(runs.map((r) => r.p50))), fixed(median(runs.map((r) => r.p99))), runs.map((r) => `${r.bound}/${r.sent}`).join(', '), m((p) => p.toQueued), m((p) => p.toTaken), m((p) => p.working), m((p) => p.toAnswered)]],
        ),
        '',
        "Phases: medians over the runs of each run's median, in ms, from the bind jobs' own times (whole milliseconds).",
      ].join('\n'),
    )
  } finally {
    await queue.close()
    await stopAll()
    closeHttp()
    await scratch.remove()
  }
}

stopOnSignals(log)
runMain('bind', main)
