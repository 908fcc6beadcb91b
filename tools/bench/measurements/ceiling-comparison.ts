/**
 * Callbacks and rpc against the ceiling: autocannon runs alternating between the real front and a plain hyper-express
 * server answering the same body from memory (tools/bench/ceiling-server.ts), with the CPU each side used from /proc.
 */
import autocannon, { type Options, type Result } from 'autocannon'
import { performance } from 'node:perf_hooks'
import type { TextResponse } from '../../harness/http.js'
import { startProcess, type BenchProcess } from '../../harness/processes.js'
import { cpuMeter, cpuSeconds } from '../../harness/proc-sampler.js'
import type { BenchSettings } from '../settings.js'
import { fixed, int } from '../../harness/stats.js'
import type { BenchEnv } from './bench-env.js'
import { connectionRequests, type ClientTraffic } from './client-traffic.js'

/** One autocannon run with the CPU each side used. */
export interface LoadRun {
  reqPerSec: number
  p50: number
  p99: number
  bad: number
  /** CPU cores used during the run by the server side (front workers, or the ceiling). */
  serverCores: number
  /** CPU cores redis-server used during the run (NaN when Redis is not local). */
  redisCores: number
  /** CPU cores autocannon (this process) used during the run. */
  loadCores: number
}

/** The service and ceiling runs of one route. */
export interface Comparison {
  route: 'callbacks' | 'rpc'
  bodyBytes: number
  service: LoadRun[]
  ceiling: LoadRun[]
}

/** Processes whose CPU time is sampled around each run. */
interface CpuTargets {
  server: () => Promise<number[]>
  redis: number | undefined
}

/** What the ceiling answers to one route: the service's own response to it, its body and the headers it sent with it. */
export type CeilingAnswer = Pick<TextResponse, 'text' | 'headers'>

/** What a ceiling answers: callbacks and rpc, and log events when `log` is given (the service's 200 to one). */
export interface CeilingAnswers {
  callbacks: CeilingAnswer
  rpc: CeilingAnswer
  log?: CeilingAnswer
}

/**
 * Starts a ceiling server (`name` in the bench's log) on `port`, answering callbacks, rpc and (when given) log events
 * as given (the service's own answers: tools/bench/ceiling-server.ts); resolves once it listens.
 */
export async function startCeiling(port: number, answers: CeilingAnswers, name = 'ceiling'): Promise<BenchProcess> {
  const ceiling = startProcess({ name, script: 'tools/bench/ceiling-server.js', ipc: true })
  await new Promise<void>((resolve, reject) => {
    ceiling.proc.once('message', (m: { ready?: boolean; error?: string }) => (m.ready === true ? resolve() : reject(new Error(m.error))))
    ceiling.proc.once('exit', (code) => reject(new Error(`ceiling exited with ${code}: ${ceiling.lines.join('\n')}`)))
    ceiling.proc.send({ port, ...answers })
  })
  return ceiling
}

function cannon(settings: BenchSettings, url: string, seconds: number, traffic?: ClientTraffic): Promise<Result> {
  const options: Options = { url, connections: settings.connections, pipelining: settings.pipelining, duration: seconds }
  if (traffic !== undefined) {
    // Each connection gets its own clients (autocannon calls setupClient once per connection, in order).
    const path = new URL(url).pathname
    let next = 0
    options.setupClient = (client) => client.setRequests(connectionRequests(traffic, settings.connections, next++, path))
  }
  return autocannon(options)
}

async function measuredRun(settings: BenchSettings, url: string, cpu: CpuTargets, traffic?: ClientTraffic): Promise<LoadRun> {
  const server = await cpuMeter(await cpu.server())
  const before = { redis: cpu.redis === undefined ? Number.NaN : await cpuSeconds(cpu.redis), load: process.cpuUsage() }
  const started = performance.now()
  const r = await cannon(settings, url, settings.loadSeconds, traffic)
  const wall = (performance.now() - started) / 1000
  const load = process.cpuUsage(before.load)
  const redis = cpu.redis === undefined ? Number.NaN : (await cpuSeconds(cpu.redis)) - before.redis
  return {
    reqPerSec: r['2xx'] / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    bad: r.non2xx + r.errors + r.timeouts,
    serverCores: (await server.spent()) / wall,
    redisCores: redis / wall,
    loadCores: (load.user + load.system) / 1e6 / wall,
  }
}

/**
 * Alternates service and ceiling runs of `GET /api/v1/<route>/<path>` so machine noise hits both alike; with
 * `traffic`, both sides get the requests of many clients through a trusted proxy (client-traffic.ts) instead of one.
 */
export async function compareWithCeiling(
  env: BenchEnv,
  settings: BenchSettings,
  route: 'callbacks' | 'rpc',
  path: string,
  bodyBytes: number,
  log: (message: string) => void,
  traffic?: ClientTraffic,
): Promise<Comparison> {
  const service = `${env.scratch.api}/${route}/${path}`
  const ceiling = `${env.ceiling}/${route}/${path}`
  await cannon(settings, service, settings.warmupSeconds, traffic)
  await cannon(settings, ceiling, settings.warmupSeconds, traffic)
  const out: Comparison = { route, bodyBytes, service: [], ceiling: [] }
  for (let run = 1; run <= settings.runs; run++) {
    const s = await measuredRun(settings, service, { server: env.frontWorkerPids, redis: env.redisPid }, traffic)
    const c = await measuredRun(settings, ceiling, { server: async () => [env.ceilingPid], redis: env.redisPid }, traffic)
    if (s.bad > 0) {
      const hint = traffic === undefined ? '' : ` (with ${traffic.clients} clients: a 429 means the clients poll faster than their budget here; give the traffic more clients)`
      throw new Error(`${route}: ${s.bad} failed requests in run ${run}${hint}`)
    }
    out.service.push(s)
    out.ceiling.push(c)
    log(
      `${route} run ${run}: service ${int(s.reqPerSec)} req/s p99 ${s.p99} ms (front ${fixed(s.serverCores)} + Redis ${fixed(s.redisCores)} + load ${fixed(s.loadCores)} cores), ` +
        `ceiling ${int(c.reqPerSec)} req/s p99 ${c.p99} ms (${fixed(c.serverCores)} + load ${fixed(c.loadCores)} cores)`,
    )
  }
  return out
}
