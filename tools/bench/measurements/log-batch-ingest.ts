/**
 * Log events in batches, accepted then stored, with where the CPU went. A load generator in this process (node:http on
 * keep-alive sockets: at 100 events a request its cost per event is small, and it is measured) posts batches over
 * `connections` connections, either as fast as they are answered (peak) or at a fixed rate of events (moderate), for
 * the single form too (`batchSize` 1 posts the single-event body). Every event has a description of its own, the
 * generator knows which requests were answered 200, and MySQL is then polled until it holds them: lost is accepted
 * events missing from MySQL, twice is entries stored more than once. CPU is read from /proc around the run (load and
 * drain) for the front workers, Redis, the worker, the MySQL server and this process, and divided by stored events.
 */
import { Agent, request } from 'node:http'
import { randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { sql } from 'kysely'
import { cpuMeter, cpuSeconds } from '../../harness/proc-sampler.js'
import { sleep, waitFor } from '../../harness/readiness.js'
import type { BenchEnv } from './bench-env.js'

/** How one run loads the front. */
export interface BatchLoad {
  /** Events per request: 1 sends the single-event body, more the batch form `{"events": [...]}`. */
  batchSize: number
  /** Connections (one request in flight on each). */
  connections: number
  /** Events to send in all. */
  events: number
  /** Events per second to pace at (open loop, spread over the connections); absent: as fast as answered. */
  ratePerSec?: number
  /** Client addresses through the trusted proxy: each request carries an `X-Forwarded-For` of one of this many addresses. */
  clients?: number
}

/** CPU seconds one run used, per process (load and drain). */
export interface ProcessCpu {
  front: number
  redis: number
  worker: number
  mysql: number
  /** This process: the load generator and the polling. */
  bench: number
}

/** One run's counts, times and CPU. */
export interface BatchRun {
  load: BatchLoad
  /** Events answered 200. */
  accepted: number
  /** Events answered otherwise (or not at all). */
  rejected: number
  loadSeconds: number
  /** From the end of the load until MySQL held every accepted event. */
  drainSeconds: number
  /** Accepted events found in MySQL. */
  stored: number
  /** Accepted events not found in MySQL. */
  lost: number
  /** Entries of the run stored more than once (extra copies). */
  twice: number
  cpu: ProcessCpu
}

/** Stored events per second end to end: from the first request to the moment MySQL held every accepted event. */
export function storedPerSec(r: BatchRun): number {
  return r.stored / (r.loadSeconds + r.drainSeconds)
}

/** CPU microseconds per stored event, per process and summed over the service's four (front, Redis, worker, MySQL). */
export function cpuPerEvent(r: BatchRun): ProcessCpu & { service: number } {
  const per = (s: number) => (s * 1e6) / Math.max(1, r.stored)
  const c = r.cpu
  return { front: per(c.front), redis: per(c.redis), worker: per(c.worker), mysql: per(c.mysql), bench: per(c.bench), service: per(c.front + c.redis + c.worker + c.mysql) }
}

/** The body of request `n`: its events described `#<tag>.<n>.<i>`. */
function bodyOf(tag: string, eventType: string, n: number, size: number): string {
  const event = (i: number) =>
    `{"event_type":"${eventType}","description":"Player Builderman joined the server (benchmark event #${tag}.${n}.${i})","platform_username":"Builderman","platform_user_id":156,"issued_by":"ServerScript"}`
  if (size === 1) return event(0)
  const parts: string[] = []
  for (let i = 0; i < size; i++) parts.push(event(i))
  return `{"events":[${parts.join(',')}]}`
}

/** Posts one body; resolves with the status (0 when the connection failed). */
function post(agent: Agent, origin: URL, bearer: string, body: string, forwardedFor: string | undefined): Promise<number> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', authorization: bearer, 'content-length': String(Buffer.byteLength(body)) }
    if (forwardedFor !== undefined) headers['x-forwarded-for'] = forwardedFor
    const req = request({ host: origin.hostname, port: origin.port, path: '/api/v1/log/server', method: 'POST', agent, headers }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', () => resolve(0))
    req.end(body)
  })
}

/** Sends the run's requests; returns the numbers of the requests answered 200. */
async function sendLoad(env: BenchEnv, load: BatchLoad, tag: string, eventType: string): Promise<{ accepted: Set<number>; requests: number }> {
  const origin = new URL(env.scratch.api)
  const agent = new Agent({ keepAlive: true, maxSockets: load.connections })
  const requests = Math.ceil(load.events / load.batchSize)
  const accepted = new Set<number>()
  let next = 0
  const started = performance.now()
  // Open loop when paced: request n is due at n / (rate / batchSize) seconds, whatever the answers before it took.
  const dueMs = load.ratePerSec === undefined ? undefined : (n: number) => (n * load.batchSize * 1000) / load.ratePerSec!
  const lane = async () => {
    for (;;) {
      const n = next++
      if (n >= requests) return
      if (dueMs !== undefined) {
        const wait = dueMs(n) - (performance.now() - started)
        if (wait > 0) await sleep(wait)
      }
      const forwardedFor = load.clients === undefined ? undefined : `10.77.${(n % load.clients) >> 8}.${(n % load.clients) & 255}`
      if ((await post(agent, origin, env.bearer, bodyOf(tag, eventType, n, load.batchSize), forwardedFor)) === 200) accepted.add(n)
    }
  }
  try {
    await Promise.all(Array.from({ length: load.connections }, lane))
  } finally {
    agent.destroy()
  }
  return { accepted, requests }
}

/** Runs one load and waits until MySQL holds every accepted event; then counts what was lost and stored twice. */
export async function batchRun(env: BenchEnv, load: BatchLoad, run: number): Promise<BatchRun> {
  const tag = `${run}${randomBytes(3).toString('hex')}`
  const eventType = `bench_batch_${tag}`
  const before = await env.scratch.db.selectFrom('log_entries').select(sql<string>`COALESCE(MAX(id), 0)`.as('id')).executeTakeFirstOrThrow()
  const front = await cpuMeter(await env.frontWorkerPids())
  const cpuBefore = { redis: await cpuSeconds(env.redisPid ?? 0), worker: await cpuSeconds(env.workerPid), mysql: await cpuSeconds(env.mysqlPid ?? 0), self: process.cpuUsage() }
  const loadStarted = performance.now()
  const { accepted, requests } = await sendLoad(env, load, tag, eventType)
  const loadEnded = performance.now()
  const acceptedEvents = accepted.size * load.batchSize
  // While waiting, count only the rows stored since the last poll (on the primary key): counting the whole run's
  // range every poll cost MySQL a measurable share of the work it was measured for. One worker commits one group at a
  // time, so ids become visible in order and nothing appears below the last id seen.
  let seenId = before.id
  let seen = 0
  const countNew = async () => {
    const row = await env.scratch.db
      .selectFrom('log_entries')
      .select([sql<number>`COUNT(*)`.as('n'), sql<string>`COALESCE(MAX(id), 0)`.as('last')])
      .where('id', '>', seenId)
      .executeTakeFirstOrThrow()
    if (Number(row.n) > 0) {
      seen += Number(row.n)
      seenId = row.last
    }
    return seen
  }
  await waitFor(`${acceptedEvents} stored log entries`, async () => (await countNew()) >= acceptedEvents, 600_000, 20)
  const drainEnded = performance.now()
  const self = process.cpuUsage(cpuBefore.self)
  const cpu: ProcessCpu = {
    front: await front.spent(),
    redis: (await cpuSeconds(env.redisPid ?? 0)) - cpuBefore.redis,
    worker: (await cpuSeconds(env.workerPid)) - cpuBefore.worker,
    mysql: (await cpuSeconds(env.mysqlPid ?? 0)) - cpuBefore.mysql,
    bench: (self.user + self.system) / 1e6,
  }
  // Give stragglers (a retried job, a duplicate) time to show up before the zero-loss check.
  await sleep(500)
  const rows = await env.scratch.db.selectFrom('log_entries').select('description').where('event_type', '=', eventType).execute()
  const copies = new Map<string, number>()
  for (const r of rows) copies.set(r.description, (copies.get(r.description) ?? 0) + 1)
  let stored = 0
  for (const n of accepted) for (let i = 0; i < load.batchSize; i++) if (copies.has(`Player Builderman joined the server (benchmark event #${tag}.${n}.${i})`)) stored++
  let twice = 0
  for (const c of copies.values()) twice += c - 1
  return {
    load,
    accepted: acceptedEvents,
    rejected: (requests - accepted.size) * load.batchSize,
    loadSeconds: (loadEnded - loadStarted) / 1000,
    drainSeconds: (drainEnded - loadEnded) / 1000,
    stored,
    lost: acceptedEvents - stored,
    twice,
    cpu,
  }
}

/** The settings of the batch measurements (BenchSettings' batch part). */
export interface BatchSettings {
  runs: number
  batchSize: number
  batchConnections: number
  batchEvents: number
  moderateRate: number
  moderateSeconds: number
}

/** Everything the batch measurements produce: peak runs, then one run each of the moderate load in batches and single. */
export interface BatchResults {
  peak: BatchRun[]
  moderateBatch: BatchRun
  moderateSingle: BatchRun
}

/** Events each proxied client address sends in one run: within the defaults (30 requests and 3,000 events a minute). */
const EVENTS_PER_CLIENT = 2000

/** Client addresses for a load, so that none passes the default limits (30 requests, 3,000 events a minute). */
export function clientsFor(load: Pick<BatchLoad, 'events' | 'batchSize'>): number {
  return Math.max(1, Math.ceil(Math.max(load.events / EVENTS_PER_CLIENT, load.events / load.batchSize / 25)))
}

/**
 * The batch measurements on `env` (a front that trusts 127.0.0.1 as a proxy, with default limits): a warm-up not
 * counted, `runs` peak runs, then the moderate load in batches and as single events. `log` hears each run.
 */
export async function measureBatches(env: BenchEnv, s: BatchSettings, log: (line: string) => void): Promise<BatchResults> {
  const peakLoad = { batchSize: s.batchSize, connections: s.batchConnections, events: s.batchEvents }
  await batchRun(env, { ...peakLoad, events: Math.min(s.batchEvents, 20 * s.batchSize * s.batchConnections), clients: clientsFor(peakLoad) }, 900)
  const peak: BatchRun[] = []
  for (let run = 1; run <= s.runs; run++) {
    const r = await batchRun(env, { ...peakLoad, clients: clientsFor(peakLoad) }, run)
    peak.push(r)
    const p = cpuPerEvent(r)
    log(
      `batches run ${run}: accepted ${r.accepted} in ${r.loadSeconds.toFixed(2)} s, stored ${r.stored} (${Math.round(storedPerSec(r))}/s end to end), lost ${r.lost}, twice ${r.twice}; µs per event: front ${p.front.toFixed(1)}, redis ${p.redis.toFixed(1)}, worker ${p.worker.toFixed(1)}, mysql ${p.mysql.toFixed(1)} = ${p.service.toFixed(1)}`,
    )
  }
  const moderate = async (batchSize: number, run: number) => {
    const load = { batchSize, connections: batchSize === 1 ? 16 : 4, events: s.moderateRate * s.moderateSeconds, ratePerSec: s.moderateRate }
    const r = await batchRun(env, { ...load, clients: clientsFor(load) }, run)
    log(`moderate load, ${batchSize === 1 ? 'single events' : `batches of ${batchSize}`}: µs per event ${cpuPerEvent(r).service.toFixed(1)}, lost ${r.lost}, twice ${r.twice}`)
    return r
  }
  return { peak, moderateBatch: await moderate(s.batchSize, 802), moderateSingle: await moderate(1, 801) }
}
