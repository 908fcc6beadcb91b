/**
 * `npm run bench:read-path`: the read-path section of BENCHMARKS.md alone (measurements/read-path.ts: callbacks and
 * rpc with rate limits off and on against the ceiling, and Redis commands per warm request). Starts the real front
 * (FRONT_WORKERS=1) and worker from dist/ on a scratch database and prefix, seeds the linked users, measures, and
 * prints a partial report (also written to /tmp/presence-link-bench/read-path.md). It never touches BENCHMARKS.md:
 * `npm run bench` measures the same section with all the others in one run.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { QueueName } from '../../src/queue/names.js'
import { closeHttp, send } from '../harness/http.js'
import { createBenchLog, runMain, stopAll, stopOnSignals } from '../harness/processes.js'
import { sleep } from '../harness/readiness.js'
import { createScratch } from '../harness/scratch.js'
import { startBenchEnv } from './measurements/bench-env.js'
import { startCeiling } from './measurements/ceiling-comparison.js'
import { seedLinkedUsers } from './measurements/linked-users.js'
import { measureReadPath } from './measurements/read-path.js'
import { describeMachine } from './report/describe-machine.js'
import { startLoadTrace } from './report/load-trace.js'
import { COMMANDS, renderPartialReport, renderReadPathSection } from './report/render-report.js'
import { SETTINGS } from './settings.js'

const ROOT = new URL('../../../', import.meta.url)
const OUT_DIR = '/tmp/presence-link-bench'
const log = createBenchLog('read-path')

async function main(): Promise<void> {
  const startedAt = new Date()
  const load = await startLoadTrace()
  const scratch = await createScratch({ stem: 'benchrp', poolSize: 4, env: { FRONT_WORKERS: '1', ROBLOX_USERS_API: 'http://127.0.0.1:9' } })
  try {
    const { env, ceilingPort } = await startBenchEnv(scratch, { queues: [QueueName.Bind], serverCpu: true })
    const machine = await describeMachine(scratch.db, scratch.redis, ROOT)
    const path = (await seedLinkedUsers(env, SETTINGS.linkedUsers)).join('&')
    // The marks watcher reads the shard marks once a second.
    await sleep(1500)
    const callbacksBody = await send(`${scratch.api}/callbacks/${path}`, 'GET', undefined, {})
    const rpcBody = await send(`${scratch.api}/rpc/${path}`, 'GET', undefined, {})
    env.ceilingPid = (await startCeiling(ceilingPort, { callbacks: callbacksBody, rpc: rpcBody })).pid
    load.section('read path')
    const readPath = await measureReadPath(env, { path, callbacksBytes: Buffer.byteLength(callbacksBody.text), rpcBytes: Buffer.byteLength(rpcBody.text) }, SETTINGS, log)
    const seconds = (Date.now() - startedAt.getTime()) / 1000
    const report = renderPartialReport({ command: COMMANDS.readPath, startedAt, seconds, machine, load: await load.stop(), sections: [renderReadPathSection(readPath, SETTINGS)] })
    console.log(report)
    await mkdir(OUT_DIR, { recursive: true })
    await writeFile(`${OUT_DIR}/read-path.md`, report)
    log(`wrote ${OUT_DIR}/read-path.md`)
  } finally {
    await stopAll()
    closeHttp()
    await scratch.remove()
  }
}

stopOnSignals(log)
runMain('read-path', main)
