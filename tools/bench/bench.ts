/**
 * `npm run bench`: starts the real service from dist/ as child processes (front with FRONT_WORKERS=1, worker) on a
 * scratch MySQL database and Redis prefix with rate limits off, seeds realistic data through the real code paths,
 * runs every measurement in tools/bench/measurements/ (the gateway ones on worlds of their own), writes BENCHMARKS.md at
 * the repository root, and removes everything it created. Never part of `npm test`.
 */
import { writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { QueueName } from '../../src/queue/names.js'
import { closeHttp, send } from '../harness/http.js'
import { createBenchLog, runMain, stopAll, stopOnSignals } from '../harness/processes.js'
import { createScratch } from '../harness/scratch.js'
import { startBenchEnv } from './measurements/bench-env.js'
import { bindAtFixedRate, type BindRun } from './measurements/bind-rate.js'
import { compareWithCeiling, startCeiling } from './measurements/ceiling-comparison.js'
import { measureGatewayMemory, type GatewayMemoryResult } from './measurements/gateway-memory.js'
import { issueFresh } from '../harness/issue-fresh.js'
import { seedLinkedUsers } from './measurements/linked-users.js'
import { logRun, type LogRun } from './measurements/log-accept-store.js'
import { measurePresencePropagation, type PropagationResult } from './measurements/presence-propagation.js'
import { redisBytesPerUser } from './measurements/redis-memory.js'
import { describeMachine } from './report/describe-machine.js'
import { renderReport } from './report/render-report.js'
import { SETTINGS } from './settings.js'
import { bytes, fixed, int } from '../harness/stats.js'

const ROOT = new URL('../../../', import.meta.url)
const REPORT = new URL('BENCHMARKS.md', ROOT)
const log = createBenchLog('bench')

async function main(): Promise<void> {
  const startedAt = new Date()
  const scratch = await createScratch({
    stem: 'bench',
    poolSize: 8,
    env: { FRONT_WORKERS: String(SETTINGS.frontWorkers), ROBLOX_USERS_API: 'http://127.0.0.1:9' },
  })
  log(`database pl_${scratch.name}, Redis prefix ${scratch.name}`)
  try {
    const { env, ceilingPort } = await startBenchEnv(scratch, { queues: [QueueName.Bind, QueueName.Log], redisCpu: true })
    log('front and worker are up')
    const machine = await describeMachine(scratch.db, scratch.redis, ROOT)
    const seeded = await seedLinkedUsers(env, SETTINGS.linkedUsers)
    const path = seeded.join('&')
    const callbacksBody = await send(`${scratch.api}/callbacks/${path}`, 'GET', undefined, {})
    const rpcBody = await send(`${scratch.api}/rpc/${path}`, 'GET', undefined, {})
    for (const [route, res] of [['callbacks', callbacksBody], ['rpc', rpcBody]] as const) {
      const blocks = res.text.split('\n').filter((l) => l.startsWith('{')).length
      if (res.status !== 200 || blocks !== SETTINGS.linkedUsers) throw new Error(`${route} answered ${res.status} with ${blocks} blocks`)
    }
    log(`seeded ${SETTINGS.linkedUsers} linked users; callbacks body ${callbacksBody.text.length} chars, rpc ${rpcBody.text.length}`)
    env.ceilingPid = (await startCeiling(ceilingPort, callbacksBody.text, rpcBody.text)).pid

    const callbacks = await compareWithCeiling(env, SETTINGS, 'callbacks', path, Buffer.byteLength(callbacksBody.text), log)
    const rpc = await compareWithCeiling(env, SETTINGS, 'rpc', path, Buffer.byteLength(rpcBody.text), log)

    const memory = await redisBytesPerUser(env, SETTINGS.memoryUsers)
    log(`Redis: ${int(memory.keyBytesPerUser)} B per linked user (${memory.encodings})`)

    const perRun = SETTINGS.bindRate * SETTINGS.bindSeconds
    const bind: BindRun[] = []
    for (let run = 1; run <= SETTINGS.runs; run++) {
      const fresh = await issueFresh(env.codes, perRun, 600_000_000_000_000_000n + BigInt(run) * 1_000_000n)
      const b = await bindAtFixedRate(env, SETTINGS, fresh, run)
      bind.push(b)
      log(`bind run ${run}: p50 ${fixed(b.p50)} ms, p99 ${fixed(b.p99)} ms, bound ${b.bound}/${b.sent}`)
    }

    const logs: LogRun[] = []
    for (let run = 1; run <= SETTINGS.runs; run++) {
      const l = await logRun(env, SETTINGS, run)
      logs.push(l)
      log(`log run ${run}: accepted ${int(l.accepted)} (${int(l.acceptedPerSec)}/s), stored ${int(l.stored)} after ${fixed(l.drainSeconds)} s more`)
    }

    const propagation: PropagationResult[] = []
    for (let run = 1; run <= SETTINGS.runs; run++) {
      const p = await measurePresencePropagation(SETTINGS.propagationUpdates)
      propagation.push(p)
      log(`presence propagation run ${run}: p50 ${fixed(p.p50Ms)} ms, p99 ${fixed(p.p99Ms)} ms`)
    }
    const gateway: GatewayMemoryResult[] = []
    for (const members of SETTINGS.gatewayMembers) {
      const g = await measureGatewayMemory(members)
      gateway.push(g)
      log(`gateway with ${int(members)} members: RSS ${bytes(g.rssBytes)}, resync ${fixed(g.resyncSeconds)} s`)
    }

    const seconds = (Date.now() - startedAt.getTime()) / 1000
    await writeFile(REPORT, renderReport({ startedAt, seconds, machine, callbacks, rpc, bind, log: logs, memory, propagation, gateway }, SETTINGS))
    log(`wrote ${fileURLToPath(REPORT)}`)
  } finally {
    await stopAll()
    closeHttp()
    await scratch.remove()
    log('cleaned up')
  }
}

stopOnSignals(log)
runMain('bench', main)
