/** Log events accepted, then stored: autocannon posts a fixed number of events, then MySQL is polled until it holds every accepted one. */
import autocannon from 'autocannon'
import { randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { sql } from 'kysely'
import { sleep, waitFor } from '../../harness/readiness.js'
import type { BenchSettings } from '../settings.js'
import type { BenchEnv } from './bench-env.js'

/** One run: counts, and the two phases' lengths in seconds. */
export interface LogRun {
  accepted: number
  acceptedPerSec: number
  loadSeconds: number
  drainSeconds: number
  stored: number
  rejected: number
}

/** Posts log events as fast as autocannon can for a while, then waits until MySQL holds every accepted one. */
export async function logRun(env: BenchEnv, settings: BenchSettings, run: number): Promise<LogRun> {
  const eventType = `bench_${run}_${randomBytes(3).toString('hex')}`
  const body = JSON.stringify({
    event_type: eventType,
    description: 'Player Builderman joined the server (benchmark event with a realistic length of text)',
    platform_username: 'Builderman',
    platform_user_id: 156,
    issued_by: 'ServerScript',
  })
  const loadStarted = performance.now()
  const result = await autocannon({
    url: `${env.scratch.api}/log/server`,
    method: 'POST',
    connections: settings.logConnections,
    pipelining: settings.pipelining,
    // A fixed amount, not a duration: autocannon then waits for every response, so its 2xx count is exact.
    amount: settings.logEvents,
    // autocannon notices the end only at its next sample tick (1 s by default), which would stretch the timing.
    sampleInt: 50,
    headers: { 'content-type': 'application/json', authorization: env.bearer },
    body,
  })
  const loadEnded = performance.now()
  const loadSeconds = (loadEnded - loadStarted) / 1000
  const accepted = result['2xx']
  const countStored = async () => {
    const row = await env.scratch.db
      .selectFrom('log_entries')
      .select(sql<number>`COUNT(*)`.as('n'))
      .where('event_type', '=', eventType)
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }
  let stored = 0
  await waitFor(`${accepted} stored log entries`, async () => (stored = await countStored()) >= accepted, 300_000)
  const drainSeconds = (performance.now() - loadEnded) / 1000
  // Give stragglers (a retried job, a duplicate) time to show up before the zero-loss check.
  await sleep(500)
  stored = await countStored()
  return {
    accepted,
    acceptedPerSec: accepted / loadSeconds,
    loadSeconds,
    drainSeconds,
    stored,
    rejected: result.non2xx + result.errors + result.timeouts,
  }
}
