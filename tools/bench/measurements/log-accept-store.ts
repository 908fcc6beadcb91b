/**
 * Log events accepted, then stored: autocannon posts a fixed number of events, each with a description of its own,
 * then MySQL is polled until it holds every accepted one, and the zero-loss check compares the stored events (and
 * the distinct ones: nothing stored twice) with the accepted count.
 */
import autocannon, { type Result } from 'autocannon'
import { randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { sql } from 'kysely'
import { send } from '../../harness/http.js'
import { sleep, waitFor } from '../../harness/readiness.js'
import type { BenchSettings } from '../settings.js'
import type { BenchEnv } from './bench-env.js'
import type { CeilingAnswer } from './ceiling-comparison.js'

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
  /** p99 of the answer times during the load, in ms (autocannon: whole milliseconds). */
  latencyP99Ms?: number
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

/**
 * Posts `settings.logEvents` events to `origin` over `settings.logConnections` connections as fast as they are
 * answered: the same requests for the service and for the ceiling.
 */
function postEvents(origin: string, bearer: string, settings: BenchSettings, run: number, eventType: string, options: LogRunOptions): Promise<Result> {
  if (options.proxied && settings.logEvents / EVENTS_PER_ADDRESS > 65_536) throw new Error('too many events for one run range of addresses')
  const fields = eventFields(eventType)
  let n = 0
  return autocannon({
    url: origin,
    connections: settings.logConnections,
    pipelining: settings.pipelining,
    // A fixed amount, not a duration: autocannon then waits for every response, so its 2xx count is exact.
    amount: settings.logEvents,
    // autocannon notices the end only at its next sample tick (1 s by default), which would stretch the timing.
    sampleInt: 50,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/log/server',
        setupRequest: (req) => {
          const i = n++
          const headers: Record<string, string> = { 'content-type': 'application/json', authorization: bearer }
          if (options.proxied) headers['x-forwarded-for'] = addressOf(run, i)
          // A description of its own per event (a realistic length of text), so that stored events can be told apart.
          return { ...req, headers, body: `{${fields},"description":"Player Builderman joined the server (benchmark event #${i})"}` }
        },
      },
    ],
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
export async function logCeilingRun(env: BenchEnv, settings: BenchSettings, run: number, options: LogRunOptions = { proxied: false }): Promise<number> {
  const started = performance.now()
  const result = await postEvents(new URL(env.ceiling).origin, env.bearer, settings, run, `ceiling_${run}`, options)
  const seconds = (performance.now() - started) / 1000
  const bad = result.non2xx + result.errors + result.timeouts
  if (bad > 0) throw new Error(`the ceiling failed ${bad} log events in run ${run}`)
  return result['2xx'] / seconds
}

/** Posts log events as fast as autocannon can, then waits until MySQL holds every accepted one. */
export async function logRun(env: BenchEnv, settings: BenchSettings, run: number, options: LogRunOptions = { proxied: false }): Promise<LogRun> {
  const eventType = `bench_${run}_${randomBytes(3).toString('hex')}`
  const origin = options.origin ?? new URL(env.scratch.api).origin
  const before = await env.scratch.db.selectFrom('log_entries').select(sql<string>`COALESCE(MAX(id), 0)`.as('id')).executeTakeFirstOrThrow()
  const loadStarted = performance.now()
  const result = await postEvents(origin, env.bearer, settings, run, eventType, options)
  const loadEnded = performance.now()
  const loadSeconds = (loadEnded - loadStarted) / 1000
  const accepted = result['2xx']
  // While waiting, count on the (category, id) index only: a scan of the whole table every poll would load MySQL.
  const countNew = async () => {
    const row = await env.scratch.db
      .selectFrom('log_entries')
      .select(sql<number>`COUNT(*)`.as('n'))
      .where('category', '=', 'server')
      .where('id', '>', before.id)
      .executeTakeFirstOrThrow()
    return Number(row.n)
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
    rejected: result.non2xx + result.errors + result.timeouts,
    latencyP99Ms: result.latency.p99,
  }
}

/** Events of the short run before the counted ones (JIT, pools, the first batches); the report names this number. */
export const WARMUP_EVENTS = 5000

/** The short run before the counted ones, not counted (its run number, 200, keeps its addresses apart from theirs). */
export async function warmUpLogs(env: BenchEnv, settings: BenchSettings, options: LogRunOptions = { proxied: false }): Promise<void> {
  await logRun(env, { ...settings, logEvents: Math.min(WARMUP_EVENTS, settings.logEvents) }, 200, options)
}

/** The same short run against the ceiling, not counted. */
export async function warmUpLogCeiling(env: BenchEnv, settings: BenchSettings, options: LogRunOptions = { proxied: false }): Promise<void> {
  await logCeilingRun(env, { ...settings, logEvents: Math.min(WARMUP_EVENTS, settings.logEvents) }, 200, options)
}
