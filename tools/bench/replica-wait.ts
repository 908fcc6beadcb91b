/**
 * `npm run bench:wait`: what "accepted means on two hosts" costs (issue 22). A private Redis primary with one
 * replica (both AOF, on this machine), the real front and worker from dist/; the log ingestion measurement
 * (measurements/log-accept-store.ts) runs with REDIS_WRITE_REPLICAS=0 and =1, alternating (the service restarted
 * between), `--runs` times each; prints each run and the medians of the accept rate and the p99 answer time, and
 * checks that nothing accepted was lost or stored twice.
 *
 * Options: `--runs N` (3), `--events N` (12,000 per run), `--connections N` (50), `--timeout-ms N` (1000: the WAIT
 * bound). Rate limits are off and one client address is used (the measurement's `one` mode).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { QueueName } from '../../src/queue/names.js'
import { freePort } from '../harness/free-port.js'
import { closeHttp } from '../harness/http.js'
import { privateRedis } from '../harness/private-infra.js'
import { createBenchLog, runMain, stopAll, stopOnSignals } from '../harness/processes.js'
import { createScratch } from '../harness/scratch.js'
import { fixed, int, median, table } from '../harness/stats.js'
import { startBenchEnv } from './measurements/bench-env.js'
import { logRun, type LogRun } from './measurements/log-accept-store.js'
import { SETTINGS } from './settings.js'

const log = createBenchLog('replica-wait')

/** One run of the service with REDIS_WRITE_REPLICAS=`replicas`: starts it, warms up, measures once, stops it. */
async function measure(redisUrl: string, replicas: number, timeoutMs: number, settings: typeof SETTINGS, run: number): Promise<LogRun> {
  const scratch = await createScratch({
    stem: 'benchwait',
    poolSize: 4,
    redisUrl,
    env: { FRONT_WORKERS: '1', RATE_LIMITS: 'off', ROBLOX_USERS_API: 'http://127.0.0.1:9', REDIS_WRITE_REPLICAS: String(replicas), REDIS_WRITE_TIMEOUT_MS: String(timeoutMs) },
  })
  try {
    const { env } = await startBenchEnv(scratch, { queues: [QueueName.Log], serverCpu: false })
    await logRun(env, { ...settings, logEvents: Math.min(2000, settings.logEvents) }, 200 + run)
    return await logRun(env, settings, run)
  } finally {
    await stopAll()
    await scratch.remove()
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      events: { type: 'string', default: String(SETTINGS.logEvents) },
      connections: { type: 'string', default: String(SETTINGS.logConnections) },
      'timeout-ms': { type: 'string', default: '1000' },
    },
  })
  const settings = { ...SETTINGS, logEvents: Number(values.events), logConnections: Number(values.connections) }
  const timeoutMs = Number(values['timeout-ms'])
  const dir = await mkdtemp(join(tmpdir(), 'bench-wait-'))
  const primary = await privateRedis(join(dir, 'primary'))
  await primary.start()
  const replica = await privateRedis(join(dir, 'replica'), { host: '127.0.0.1', port: await freePort(), serverArgs: ['--replicaof', '127.0.0.1', String(primary.port)] })
  try {
    await replica.start()
    log(`primary on ${primary.port}, replica on ${replica.port} (both AOF everysec); ${settings.logEvents} events per run over ${settings.logConnections} connections`)
    const runs: Record<0 | 1, Array<LogRun & { p99Ms: number }>> = { 0: [], 1: [] }
    for (let run = 1; run <= Number(values.runs); run++) {
      for (const replicas of [0, 1] as const) {
        const r = await measure(primary.url, replicas, timeoutMs, settings, run * 2 + replicas)
        runs[replicas].push({ ...r, p99Ms: r.latencyP99Ms ?? Number.NaN })
        log(`run ${run}, REDIS_WRITE_REPLICAS=${replicas}: accepted ${int(r.accepted)} (${int(r.acceptedPerSec)}/s), p99 ${fixed(r.latencyP99Ms ?? Number.NaN)} ms, stored ${int(r.distinct ?? r.stored)} distinct of ${int(r.stored)}, rejected ${r.rejected}`)
      }
    }
    const rows = ([0, 1] as const).map((replicas) => {
      const rs = runs[replicas]
      const lost = rs.map((r) => r.accepted - (r.distinct ?? r.stored))
      return [
        String(replicas),
        int(median(rs.map((r) => r.acceptedPerSec))),
        fixed(median(rs.map((r) => r.p99Ms))),
        rs.map((r) => int(r.acceptedPerSec)).join(', '),
        lost.join(', '),
        rs.map((r) => r.rejected).join(', '),
      ]
    })
    const ratio = median(runs[1].map((r) => r.acceptedPerSec)) / median(runs[0].map((r) => r.acceptedPerSec))
    console.log(
      [
        '',
        table(['REDIS_WRITE_REPLICAS', 'accepted/s (median)', 'p99 ms (median)', 'accepted/s, each run', 'lost, each run', 'rejected, each run'], rows),
        '',
        `With WAIT: ${fixed(ratio * 100)} % of the accept rate without it.`,
      ].join('\n'),
    )
  } finally {
    await replica.kill('SIGKILL')
    await primary.kill('SIGKILL')
    closeHttp()
    await rm(dir, { recursive: true, force: true })
  }
}

stopOnSignals(log)
runMain('replica-wait', main)
