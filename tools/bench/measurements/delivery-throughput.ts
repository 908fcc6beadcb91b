/**
 * Delivery to Discord: the sandbox in this process, the front (FRONT_WORKERS=1) and one worker (`worker log delivery`)
 * as child processes, the server log pointed at a sandbox webhook, the service's defaults otherwise
 * (DELIVERY_RATE_LIMIT 45/s, 1 s batching window). What it measures is the service's own delivery rate, so the sandbox
 * enforces no bucket (a real webhook takes about 5 messages per 2 s: delivery-overload.ts measures that) and digest
 * mode is off (DELIVERY_DIGEST_BACKLOG and DELIVERY_DIGEST_AFTER_MS 0), as when these figures were first taken.
 *
 * Burst runs: ENTRIES log entries posted over 50 connections, then the time until the last one is delivered
 * (MySQL `delivered_at`), the requests sent to Discord (the sandbox's counter) and receipt-to-delivery latency. A
 * trickle run (20 entries per second for 10 s) shows the cost of the batching window when entries come slowly. A
 * drain run stores ENTRIES with no destination set, then sets it and replays them: delivery alone, without ingestion
 * competing for the CPU.
 */
import { randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { sql } from 'kysely'
import { parseDestinationTarget } from '../../../src/delivery/model/destination.js'
import { setDestination, unsetDestination } from '../../../src/mysql/destination-rows.js'
import { replayEntries } from '../../../src/mysql/log-entry-rows.js'
import { sleep, waitFor as pollUntil } from '../../harness/readiness.js'
import { control, SERVER_LOG_CHANNEL, startSandbox } from '../../harness/sandbox.js'
import type { Scratch } from '../../harness/scratch.js'
import { openDeliveryWorld, type DeliveryWorld } from './delivery-world.js'
import { fixed, int, percentile } from '../../harness/stats.js'

/** One delivery run: counts, seconds from the first POST, and receipt-to-delivery latency in milliseconds. */
export interface DeliveryRun {
  entries: number
  postSeconds: number
  totalSeconds: number
  requests: number
  p50Ms: number
  p95Ms: number
}

/** Every run of one invocation. */
export interface DeliveryResult {
  bursts: DeliveryRun[]
  trickle: DeliveryRun
  drain: DeliveryRun
}

/** Concurrent posters in the burst and drain runs. */
export const DELIVERY_CONNECTIONS = 50
/** Entries per second of the trickle run. */
export const TRICKLE_PER_SECOND = 20
const TRICKLE_SECONDS = 10

const waitFor = (what: string, check: () => Promise<boolean>, timeoutMs = 120_000) => pollUntil(what, check, timeoutMs, 50)

async function countEntries(scratch: Scratch, eventType: string, state: 'sent' | 'none'): Promise<number> {
  const row = await scratch.db
    .selectFrom('log_entries')
    .select(sql<number>`COUNT(*)`.as('n'))
    .where('event_type', '=', eventType)
    .where('delivery_state', '=', state)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Runs `runs` bursts of `entries`, the trickle and the drain on a world of its own, and removes what it made. */
export async function measureDelivery(entries: number, runs: number, log: (message: string) => void): Promise<DeliveryResult> {
  const sandbox = await startSandbox(0)
  let opened: DeliveryWorld | undefined
  try {
    const hook = await control<{ url: string }>(sandbox, 'POST', 'webhooks', { channel_id: SERVER_LOG_CHANNEL, name: 'bench' })
    opened = await openDeliveryWorld(sandbox, 'dbench', { LOG_DESTINATION_SERVER: hook.url, DELIVERY_DIGEST_BACKLOG: '0', DELIVERY_DIGEST_AFTER_MS: '0' }, log)
    const { world, bearer } = opened

    const post = async (eventType: string, i: number) => {
      const res = await fetch(`${world.api}/log/server`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: bearer },
        body: JSON.stringify({ event_type: eventType, description: `Player Builderman joined the server (entry ${i})`, platform_username: 'Builderman', platform_user_id: 156, issued_by: 'ServerScript' }),
      })
      await res.arrayBuffer()
      if (res.status !== 200) throw new Error(`log answered ${res.status}`)
    }
    const postConcurrently = async (eventType: string) => {
      let next = 0
      await Promise.all(
        Array.from({ length: DELIVERY_CONNECTIONS }, async () => {
          for (let i = next++; i < entries; i = next++) await post(eventType, i)
        }),
      )
    }
    const measure = async (eventType: string, count: number, postAll: () => Promise<void>): Promise<DeliveryRun> => {
      await control(sandbox, 'DELETE', 'requests')
      const started = performance.now()
      const startedWall = Date.now()
      await postAll()
      const postSeconds = (performance.now() - started) / 1000
      await waitFor(`${count} delivered`, async () => (await countEntries(world, eventType, 'sent')) >= count, 600_000)
      const rows = await world.db.selectFrom('log_entries').select(['received_at', 'delivered_at']).where('event_type', '=', eventType).execute()
      const lastDelivery = Math.max(...rows.map((r) => r.delivered_at!.getTime()))
      const latencies = rows.map((r) => r.delivered_at!.getTime() - r.received_at.getTime())
      const requests = (await control<{ total: number }>(sandbox, 'GET', 'requests')).total
      return { entries: count, postSeconds, totalSeconds: (lastDelivery - startedWall) / 1000, requests, p50Ms: percentile(latencies, 50), p95Ms: percentile(latencies, 95) }
    }

    const bursts: DeliveryRun[] = []
    for (let run = 1; run <= runs; run++) {
      const eventType = `burst_${run}_${randomBytes(3).toString('hex')}`
      const r = await measure(eventType, entries, () => postConcurrently(eventType))
      bursts.push(r)
      log(`burst run ${run}: ${int(r.entries / r.totalSeconds)} entries/s end to end (posted in ${fixed(r.postSeconds)} s, delivered by ${fixed(r.totalSeconds)} s), ${fixed((r.requests / r.entries) * 1000, 1)} requests per 1,000 entries`)
    }

    const trickleType = `trickle_${randomBytes(3).toString('hex')}`
    const trickleCount = TRICKLE_PER_SECOND * TRICKLE_SECONDS
    const trickle = await measure(trickleType, trickleCount, async () => {
      const t0 = performance.now()
      for (let i = 0; i < trickleCount; i++) {
        const due = t0 + (i * 1000) / TRICKLE_PER_SECOND
        const wait = due - performance.now()
        if (wait > 0) await sleep(wait)
        void post(trickleType, i)
      }
    })
    log(`trickle: ${fixed((trickle.requests / trickle.entries) * 1000, 1)} requests per 1,000 entries, latency p50 ${int(trickle.p50Ms)} ms, p95 ${int(trickle.p95Ms)} ms`)

    const drainType = `drain_${randomBytes(3).toString('hex')}`
    await unsetDestination(world.db, 'server')
    const drainStart = new Date()
    await postConcurrently(drainType)
    await waitFor('entries stored without a destination', async () => (await countEntries(world, drainType, 'none')) >= entries)
    const target = parseDestinationTarget(hook.url, sandbox.apiBase)
    if (!target.ok) throw new Error(target.message)
    await setDestination(world.db, 'server', target.target, 'bench', { enable: true })
    const drain = await measure(drainType, entries, async () => {
      await replayEntries(world.db, 'server', drainStart)
    })
    log(`drain: ${int(drain.entries / drain.totalSeconds)} entries/s, ${fixed((drain.requests / drain.entries) * 1000, 1)} requests per 1,000 entries`)
    return { bursts, trickle, drain }
  } finally {
    try {
      await opened?.close()
    } finally {
      await sandbox.close()
    }
  }
}
