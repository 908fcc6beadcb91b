/**
 * Log events accepted, then stored: wrk (tools/harness/wrk.ts) posts single events for a fixed time, each with a
 * description of its own, then MySQL is polled until it holds every accepted one, and the zero-loss check compares
 * the distinct stored events with the accepted count (and the stored with the distinct: nothing stored twice). wrk
 * stops counting when its time is up, so the requests still in flight then (at most one per connection) may be stored
 * without having been counted as accepted: stored can exceed accepted by that much, never fall short of it.
 */
import { randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { sql } from 'kysely'
import { send } from '../../harness/http.js'
import { sleep, waitFor } from '../../harness/readiness.js'
import type { BenchSettings } from '../settings.js'
import type { BenchEnv } from './bench-env.js'
import type { CeilingAnswer } from './ceiling-comparison.js'
import { runWrk, type WrkResult } from '../../harness/wrk.js'
import { QueueName } from '../../../src/queue/names.js'
import { createQueue } from '../../../src/queue/queues.js'

/** One run: counts, and the two phases' lengths in seconds. */
export interface LogRun {
  accepted: number
  acceptedPerSec: number
  loadSeconds: number
  drainSeconds: number
  stored: number
  /** Distinct events among the stored ones (equal to `stored` when nothing was stored twice; absent: not counted). */
  distinct?: number
  rejected: number
  /** p99 of the answer times during the load, in ms. */
  latencyP99Ms?: number
  /** The load generator's CPU seconds during the load. */
  generatorCpuSeconds?: number
  /** Events per second the ceiling answered under the same load, in a run right after this one (absent: not measured). */
  ceilingPerSec?: number
}

/** How the load reaches the front. */
export interface LogRunOptions {
  /**
   * Many clients through a trusted proxy: every request carries `X-Forwarded-For` with an address of its own run's
   * range (10.{run}.x.y, EVENTS_PER_ADDRESS events each, under the contract's 30 per 60 s), so each client stays
   * within its log limit; the front must trust 127.0.0.1 and run with limits on. Otherwise one address (limits off).
   */
  proxied: boolean
  /** `http://127.0.0.1:PORT` of the front to load (the bench env's front by default). */
  origin?: string
  /**
   * Hold the storing half during the load: the log queue is paused while wrk posts (the events wait in Redis, durably
   * queued as every accepted one is) and resumed when it stops, so the front, Redis and the load generator have the
   * cores to themselves, as when the workers and MySQL run on other machines. The drain then stores the backlog.
   */
  holdStoring?: boolean
}

/**
 * Accepted events missing from MySQL: accepted minus the distinct stored ones, never below 0 (wrk stops counting with
 * up to one request in flight per connection, which may be stored uncounted).
 */
export function lostOf(r: Pick<LogRun, 'accepted' | 'stored' | 'distinct'>): number {
  return Math.max(0, r.accepted - (r.distinct ?? r.stored))
}

/** Events each proxied client address sends in one run (the contract's log limit is 30 per 60 s). */
export const EVENTS_PER_ADDRESS = 20

/** The proxied address of event `n` of run `run`. */
function addressOf(run: number, n: number): string {
  const client = Math.floor(n / EVENTS_PER_ADDRESS)
  return `10.${run % 256}.${(client >> 8) & 255}.${client & 255}`
}

/** The fixed part of every benchmark event of one run (its event type tells the run's events apart). */
function eventFields(eventType: string): string {
  return `"event_type":"${eventType}","platform_username":"Builderman","platform_user_id":156,"issued_by":"ServerScript"`
}

// wrk's request(): event `counter` of this run, with its own description, through the proxy when asked.
const WRK_REQUEST = `
function request()
  counter = counter + 1
  local headers = { ["Content-Type"] = "application/json", ["Authorization"] = args[2] }
  if args[4] ~= "0" then
    local client = math.floor(counter / ${EVENTS_PER_ADDRESS})
    headers["X-Forwarded-For"] = string.format("10.%d.%d.%d", tonumber(args[4]) % 256, math.floor(client / 256) % 256, client % 256)
  end
  return wrk.format("POST", "/api/v1/log/server", headers, "{" .. args[3] .. ",\\"description\\":\\"Player Builderman joined the server (benchmark event #" .. args[1] .. "." .. counter .. ")\\"}")
end
`

/**
 * Posts single events to `origin` over `settings.logConnections` connections for `settings.logSeconds`, as fast as
 * they are answered: the same requests for the service and for the ceiling.
 */
function postEvents(origin: string, bearer: string, settings: BenchSettings, run: number, eventType: string, options: LogRunOptions, seconds = settings.logSeconds): Promise<WrkResult> {
  return runWrk({
    url: origin,
    connections: settings.logConnections,
    seconds,
    requestLua: WRK_REQUEST,
    args: [eventType, bearer, eventFields(eventType), options.proxied ? String(run) : '0'],
  })
}

/** The front's own answer to one log event (its body and headers), for the ceiling to answer every event with. */
export async function logAnswer(env: BenchEnv): Promise<CeilingAnswer> {
  const body = `{${eventFields('bench_answer')},"description":"the answer the ceiling copies"}`
  const res = await send(`${env.scratch.api}/log/server`, 'POST', body, { 'content-type': 'application/json', authorization: env.bearer })
  if (res.status !== 200) throw new Error(`a log event was answered ${res.status}: ${res.text}`)
  return res
}

/**
 * The same load as `logRun` against the ceiling (`env.ceiling`, started with a log answer): events answered per
 * second by a plain hyper-express server that only reads and parses each body, on this machine in this run.
 */
export async function logCeilingRun(env: BenchEnv, settings: BenchSettings, run: number, options: LogRunOptions = { proxied: false }, seconds = settings.logSeconds): Promise<number> {
  const result = await postEvents(new URL(env.ceiling).origin, env.bearer, settings, run, `ceiling_${run}`, options, seconds)
  const bad = result.other + result.errors
  if (bad > 0) throw new Error(`the ceiling failed ${bad} log events in run ${run}`)
  return result.ok / result.seconds
}

/** Posts log events as fast as wrk can for the run's time, then waits until MySQL holds every accepted one. */
export async function logRun(env: BenchEnv, settings: BenchSettings, run: number, options: LogRunOptions = { proxied: false }, seconds = settings.logSeconds): Promise<LogRun> {
  const eventType = `bench_${run}_${randomBytes(3).toString('hex')}`
  const origin = options.origin ?? new URL(env.scratch.api).origin
  const before = await env.scratch.db.selectFrom('log_entries').select(sql<string>`COALESCE(MAX(id), 0)`.as('id')).executeTakeFirstOrThrow()
  const queue = options.holdStoring === true ? createQueue(QueueName.Log, env.scratch.redis, env.scratch.ctx.keys.bullPrefix) : undefined
  await queue?.pause()
  const result = await postEvents(origin, env.bearer, settings, run, eventType, options, seconds).finally(() => queue?.resume())
  await queue?.close()
  const loadEnded = performance.now()
  const loadSeconds = result.seconds
  const accepted = result.ok
  // While waiting, count only the rows stored since the last poll (on the primary key): counting the whole run's
  // range every poll cost MySQL a share of the work it was measured for. One worker commits one group at a time, so
  // ids become visible in order and nothing appears below the last id seen.
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
  await waitFor(`${accepted} stored log entries`, async () => (await countNew()) >= accepted, 300_000, 50)
  const drainSeconds = (performance.now() - loadEnded) / 1000
  // Give stragglers (a retried job, a duplicate) time to show up before the zero-loss check.
  await sleep(500)
  const row = await env.scratch.db
    .selectFrom('log_entries')
    .select([sql<number>`COUNT(*)`.as('n'), sql<number>`COUNT(DISTINCT description)`.as('distinct')])
    .where('event_type', '=', eventType)
    .executeTakeFirstOrThrow()
  const stored = { n: Number(row.n), distinct: Number(row.distinct) }
  return {
    accepted,
    acceptedPerSec: accepted / loadSeconds,
    loadSeconds,
    drainSeconds,
    stored: stored.n,
    distinct: stored.distinct,
    rejected: result.other + result.errors,
    latencyP99Ms: result.p99Ms,
    generatorCpuSeconds: result.cpuSeconds,
  }
}

/** Events of the short runs before the counted ones (JIT, pools, the first batches) elsewhere; the report names this number. */
export const WARMUP_EVENTS = 5000

/** Seconds of the short run before the counted ones, not counted (JIT, pools, the first batches). */
export const WARMUP_SECONDS = 1

/** The short run before the counted ones, not counted (its run number, 200, keeps its addresses apart from theirs). */
export async function warmUpLogs(env: BenchEnv, settings: BenchSettings, options: LogRunOptions = { proxied: false }): Promise<void> {
  await logRun(env, settings, 200, options, WARMUP_SECONDS)
}

/** The same short run against the ceiling, not counted. */
export async function warmUpLogCeiling(env: BenchEnv, settings: BenchSettings, options: LogRunOptions = { proxied: false }): Promise<void> {
  await logCeilingRun(env, settings, 200, options, WARMUP_SECONDS)
}
