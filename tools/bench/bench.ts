/**
 * `npm run bench`: the whole of BENCHMARKS.md, written by this one run. Starts the real service from dist/ as child
 * processes (front with FRONT_WORKERS=1, worker) on a scratch MySQL database and Redis prefix with rate limits off,
 * seeds realistic data through the real code paths, runs every measurement in tools/bench/measurements/ (the read
 * path with limits off and on, bind, log ingestion, a log backlog stored, Redis memory; log batches, the gateway and stream ones on worlds of
 * their own),
 * traces the load average throughout, renders the report with tools/bench/report/ and removes everything it created.
 * Never part of `npm test`.
 */
import { writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { QueueName } from '../../src/queue/names.js'
import { closeHttp, send } from '../harness/http.js'
import { createBenchLog, runMain, stopAll, stopOnSignals } from '../harness/processes.js'
import { sleep } from '../harness/readiness.js'
import { createScratch } from '../harness/scratch.js'
import { batchEnvOf, startBatchEnv, startBenchEnv } from './measurements/bench-env.js'
import { bindAtFixedRate, type BindRun } from './measurements/bind-rate.js'
import { startCeiling } from './measurements/ceiling-comparison.js'
import { measureGatewayMemory, type GatewayMemoryResult } from './measurements/gateway-memory.js'
import { issueFresh } from '../harness/issue-fresh.js'
import { seedLinkedUsers } from './measurements/linked-users.js'
import { logAnswer, logCeilingRun, logRun, warmUpLogCeiling, warmUpLogs, WARMUP_EVENTS, type LogRun } from './measurements/log-accept-store.js'
import { BACKLOG_BATCH, backlogRun, type BacklogRun } from './measurements/log-backlog.js'
import { measureBatches, type BatchResults } from './measurements/log-batch-ingest.js'
import { measurePresencePropagation, type PropagationResult } from './measurements/presence-propagation.js'
import { measureReadPath } from './measurements/read-path.js'
import { redisBytesPerUser } from './measurements/redis-memory.js'
import { measureStreamDelivery, type StreamRun } from './measurements/stream-delivery.js'
import { describeMachine } from './report/describe-machine.js'
import { startLoadTrace } from './report/load-trace.js'
import { renderReport } from './report/render-report.js'
import { SETTINGS } from './settings.js'
import { bytes, fixed, int } from '../harness/stats.js'

const ROOT = new URL('../../../', import.meta.url)
const REPORT = new URL('BENCHMARKS.md', ROOT)
const log = createBenchLog('bench')

async function main(): Promise<void> {
  const startedAt = new Date()
  const load = await startLoadTrace()
  const scratch = await createScratch({
    stem: 'bench',
    poolSize: 8,
    env: { FRONT_WORKERS: String(SETTINGS.frontWorkers), ROBLOX_USERS_API: 'http://127.0.0.1:9' },
  })
  log(`database pl_${scratch.name}, Redis prefix ${scratch.name}`)
  try {
    const { env, ceilingPort } = await startBenchEnv(scratch, { queues: [QueueName.Bind, QueueName.Log], serverCpu: true })
    log('front and worker are up')
    const machine = await describeMachine(scratch.db, scratch.redis, ROOT)
    const seeded = await seedLinkedUsers(env, SETTINGS.linkedUsers)
    const path = seeded.join('&')
    // The marks watcher reads the shard marks once a second.
    await sleep(1500)
    const callbacksBody = await send(`${scratch.api}/callbacks/${path}`, 'GET', undefined, {})
    const rpcBody = await send(`${scratch.api}/rpc/${path}`, 'GET', undefined, {})
    for (const [route, res] of [['callbacks', callbacksBody], ['rpc', rpcBody]] as const) {
      const blocks = res.text.split('\n').filter((l) => l.startsWith('{')).length
      if (res.status !== 200 || blocks !== SETTINGS.linkedUsers) throw new Error(`${route} answered ${res.status} with ${blocks} blocks`)
    }
    log(`seeded ${SETTINGS.linkedUsers} linked users; callbacks body ${callbacksBody.text.length} chars, rpc ${rpcBody.text.length}`)
    env.ceilingPid = (await startCeiling(ceilingPort, { callbacks: callbacksBody, rpc: rpcBody, log: await logAnswer(env) })).pid

    load.section('read path')
    const readPath = await measureReadPath(env, { path, callbacksBytes: Buffer.byteLength(callbacksBody.text), rpcBytes: Buffer.byteLength(rpcBody.text) }, SETTINGS, log)

    load.section('memory')
    const memory = await redisBytesPerUser(env, SETTINGS.memoryUsers)
    log(`Redis: ${int(memory.keyBytesPerUser)} B per linked user (${memory.encodings})`)

    load.section('bind')
    const perRun = SETTINGS.bindRate * SETTINGS.bindSeconds
    const bind: BindRun[] = []
    for (let run = 1; run <= SETTINGS.runs; run++) {
      const fresh = await issueFresh(env.codes, perRun, 600_000_000_000_000_000n + BigInt(run) * 1_000_000n)
      const b = await bindAtFixedRate(env, SETTINGS, fresh, run)
      bind.push(b)
      log(`bind run ${run}: p50 ${fixed(b.p50)} ms, p99 ${fixed(b.p99)} ms, bound ${b.bound}/${b.sent}`)
    }

    load.section('log ingestion')
    await warmUpLogs(env, SETTINGS)
    await warmUpLogCeiling(env, SETTINGS)
    const logs: LogRun[] = []
    for (let run = 1; run <= SETTINGS.runs; run++) {
      const l = await logRun(env, SETTINGS, run)
      l.ceilingPerSec = await logCeilingRun(env, SETTINGS, run)
      logs.push(l)
      log(`log run ${run}: accepted ${int(l.accepted)} (${int(l.acceptedPerSec)}/s; the ceiling ${int(l.ceilingPerSec)}/s), stored ${int(l.stored)} after ${fixed(l.drainSeconds)} s more`)
    }

    load.section('log backlog')
    await backlogRun(env, WARMUP_EVENTS, BACKLOG_BATCH)
    const backlog: BacklogRun[] = []
    for (let run = 1; run <= SETTINGS.runs; run++) {
      const b = await backlogRun(env, SETTINGS.logEvents, BACKLOG_BATCH)
      backlog.push(b)
      log(`backlog run ${run}: ${int(b.events)} events stored in ${fixed(b.seconds)} s (${int(b.events / b.seconds)}/s)`)
    }
    // The bench's front and worker are done: the measurements below start processes of their own.
    await stopAll()

    load.section('log batches')
    const batchScratch = await createScratch({ stem: 'benchbatch', poolSize: 4, env: batchEnvOf(SETTINGS.frontWorkers) })
    let batches: BatchResults
    try {
      batches = await measureBatches(await startBatchEnv(batchScratch), SETTINGS, log)
    } finally {
      await stopAll()
      await batchScratch.remove()
    }

    load.section('presence propagation')
    const propagation: PropagationResult[] = []
    for (let run = 1; run <= SETTINGS.runs; run++) {
      const p = await measurePresencePropagation(SETTINGS.propagationUpdates)
      propagation.push(p)
      log(`presence propagation run ${run}: p50 ${fixed(p.p50Ms)} ms, p99 ${fixed(p.p99Ms)} ms`)
    }
    load.section('gateway memory')
    const gateway: GatewayMemoryResult[] = []
    for (const members of SETTINGS.gatewayMembers) {
      const g = await measureGatewayMemory(members)
      gateway.push(g)
      log(`gateway with ${int(members)} members: RSS ${bytes(g.rssBytes)}, resync ${fixed(g.resyncSeconds)} s`)
    }
    load.section('streams')
    const streams: StreamRun[] = []
    for (let run = 1; run <= SETTINGS.runs; run++) {
      const r = await measureStreamDelivery(SETTINGS.streams, log)
      streams.push(r)
      log(`streams run ${run}: ${r.deliveries}/${r.expected} deliveries, p50 ${fixed(r.p50Ms, 1)} ms, p99 ${fixed(r.p99Ms, 1)} ms, ${r.late.length} changes late`)
    }

    const seconds = (Date.now() - startedAt.getTime()) / 1000
    const results = { startedAt, seconds, machine, load: await load.stop(), readPath, bind, log: logs, backlog, batches, memory, propagation, gateway, streams }
    await writeFile(REPORT, renderReport(results, SETTINGS))
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
