/**
 * Delivery benchmark, never part of `npm test`: `npm run build && node dist/bench/delivery.js [ENTRIES] [RUNS]`.
 * Starts the Discord sandbox in this process, and the front (FRONT_WORKERS=1) and one worker (`worker log delivery`)
 * from dist/ as child processes on a unique MySQL database and Redis prefix, with the server log pointed at a sandbox
 * webhook and the service's defaults otherwise (DELIVERY_RATE_LIMIT 45/s, 1 s batching window).
 *
 * Burst runs: ENTRIES (default 5,000) log entries posted over 50 connections, then the time until the last one is
 * delivered. Reports entries per second from the first POST to the last delivery (MySQL `delivered_at`), requests
 * sent to Discord per 1,000 entries (the sandbox's counter), and receipt-to-delivery latency. A trickle run (20
 * entries per second for 10 s) shows the cost of the batching window when entries come slowly. A drain run stores
 * ENTRIES with no destination set, then sets it and replays them: delivery alone, without ingestion competing for the
 * CPU. Removes what it made.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import { parseConfig } from '../src/config.js'
import { parseDestinationTarget } from '../src/core/destination.js'
import { setDestination, unsetDestination } from '../src/mysql/destination-rows.js'
import { replayEntries } from '../src/mysql/log-entry-rows.js'
import { createLogger } from '../src/lib/logger.js'
import { createProcessContext } from '../src/runtime/process-context.js'
import { buildApiKeyService } from '../src/runtime/services.js'
import { openDatabase, openRedis } from '../src/runtime/storage.js'
import { createSandbox } from '../src/sandbox/create-sandbox.js'
import { DefaultIds } from '../src/sandbox/world.js'
import { fixed, int, median, percentile, table } from './stats.js'
import { dropScratch, freePort } from '../test/helpers/scratch.js'
import { waitFor as pollUntil } from './wait-for.js'

const waitFor = (what: string, check: () => Promise<boolean>, timeoutMs = 120_000) => pollUntil(what, check, timeoutMs, 50)

const ENTRIES = Number(process.argv[2] ?? 5000)
const RUNS = Number(process.argv[3] ?? 3)
const CONNECTIONS = 50
const TRICKLE_PER_SECOND = 20
const TRICKLE_SECONDS = 10

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url))
const log = (message: string) => process.stdout.write(`[delivery-bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const children: ChildProcess[] = []

function start(args: string[], env: Record<string, string>): ChildProcess {
  const proc = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] })
  children.push(proc)
  return proc
}

interface RunResult {
  entries: number
  postSeconds: number
  totalSeconds: number
  requests: number
  p50Ms: number
  p95Ms: number
}

async function main(): Promise<void> {
  const name = `dbench${randomBytes(4).toString('hex')}`
  const sandbox = await createSandbox({ port: 0 })
  const hook = (await (await fetch(`${sandbox.url}/control/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ channel_id: DefaultIds.serverLog, name: 'bench' }),
  })).json()) as { url: string }
  const base = parseConfig(process.env)
  if (!base.ok) throw new Error(base.problems.join('; '))
  const databaseUrl = new URL(base.config.databaseUrl)
  databaseUrl.pathname = `/pl_${name}`
  const port = await freePort()
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl.toString(),
    REDIS_URL: base.config.redisUrl,
    REDIS_PREFIX: name,
    HOST: '127.0.0.1',
    PORT: String(port),
    FRONT_WORKERS: '1',
    METRICS_PORT: '0',
    WORKER_METRICS_PORT: '0',
    RATE_LIMITS: 'off',
    LOG_LEVEL: 'warn',
    DISCORD_TOKEN: 'sandbox-token',
    DISCORD_API: sandbox.apiBase,
    LOG_DESTINATION_SERVER: hook.url,
  }
  const parsed = parseConfig({ ...process.env, ...env })
  if (!parsed.ok) throw new Error(parsed.problems.join('; '))
  const ctx = createProcessContext('delivery-bench', parsed.config, createLogger('delivery-bench', 'warn'))
  const db = await openDatabase(ctx, 4)
  const redis = await openRedis(ctx, 'request', 'bench')
  try {
    const key = await buildApiKeyService(db, redis, ctx.keys).create('bench')
    if (!key.ok) throw new Error('no API key')
    const bearer = `Bearer ${key.key}`
    start(['worker', 'log', 'delivery'], env)
    start(['front'], env)
    const api = `http://127.0.0.1:${port}/api/v1`
    await waitFor('the front', async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200)
    log(`front and worker up; database pl_${name}; ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? '?'}; node ${process.version}`)

    const post = async (eventType: string, i: number) => {
      const res = await fetch(`${api}/log/server`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: bearer },
        body: JSON.stringify({ event_type: eventType, description: `Player Builderman joined the server (entry ${i})`, platform_username: 'Builderman', platform_user_id: 156, issued_by: 'ServerScript' }),
      })
      await res.arrayBuffer()
      if (res.status !== 200) throw new Error(`log answered ${res.status}`)
    }
    const measure = async (eventType: string, count: number, postAll: () => Promise<void>): Promise<RunResult> => {
      await fetch(`${sandbox.url}/control/requests`, { method: 'DELETE' })
      const started = performance.now()
      const startedWall = Date.now()
      await postAll()
      const postSeconds = (performance.now() - started) / 1000
      const sent = async () => {
        const row = await db.selectFrom('log_entries').select(sql<number>`COUNT(*)`.as('n')).where('event_type', '=', eventType).where('delivery_state', '=', 'sent').executeTakeFirstOrThrow()
        return Number(row.n)
      }
      await waitFor(`${count} delivered`, async () => (await sent()) >= count, 600_000)
      const rows = await db.selectFrom('log_entries').select(['received_at', 'delivered_at']).where('event_type', '=', eventType).execute()
      const lastDelivery = Math.max(...rows.map((r) => r.delivered_at!.getTime()))
      const latencies = rows.map((r) => r.delivered_at!.getTime() - r.received_at.getTime())
      const requests = ((await (await fetch(`${sandbox.url}/control/requests`)).json()) as { total: number }).total
      return { entries: count, postSeconds, totalSeconds: (lastDelivery - startedWall) / 1000, requests, p50Ms: percentile(latencies, 50), p95Ms: percentile(latencies, 95) }
    }

    const bursts: RunResult[] = []
    for (let run = 1; run <= RUNS; run++) {
      const eventType = `burst_${run}_${randomBytes(3).toString('hex')}`
      let next = 0
      const r = await measure(eventType, ENTRIES, () =>
        Promise.all(Array.from({ length: CONNECTIONS }, async () => {
          for (let i = next++; i < ENTRIES; i = next++) await post(eventType, i)
        })).then(() => undefined),
      )
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
    await unsetDestination(db, 'server')
    const drainStart = new Date()
    let nextDrain = 0
    await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
      for (let i = nextDrain++; i < ENTRIES; i = nextDrain++) await post(drainType, i)
    }))
    const undelivered = async () => {
      const r = await db.selectFrom('log_entries').select(sql<number>`COUNT(*)`.as('n')).where('event_type', '=', drainType).where('delivery_state', '=', 'none').executeTakeFirstOrThrow()
      return Number(r.n)
    }
    await waitFor('entries stored without a destination', async () => (await undelivered()) >= ENTRIES)
    const target = parseDestinationTarget(hook.url, sandbox.apiBase)
    if (!target.ok) throw new Error(target.message)
    await setDestination(db, 'server', target.target, 'bench', { enable: true })
    const drain = await measure(drainType, ENTRIES, async () => {
      await replayEntries(db, 'server', drainStart)
    })
    log(`drain: ${int(drain.entries / drain.totalSeconds)} entries/s, ${fixed((drain.requests / drain.entries) * 1000, 1)} requests per 1,000 entries`)

    const row = (label: string, r: RunResult) => [
      label,
      int(r.entries),
      int(r.entries / r.totalSeconds),
      fixed(r.postSeconds),
      fixed(r.totalSeconds),
      int(r.requests),
      fixed((r.requests / r.entries) * 1000, 1),
      int(r.p50Ms),
      int(r.p95Ms),
    ]
    process.stdout.write(
      `\n${table(
        ['run', 'entries', 'entries/s POST→delivered', 'posting s', 'last delivery s', 'requests', 'requests per 1,000', 'latency p50 ms', 'latency p95 ms'],
        [...bursts.map((r, i) => row(`burst ${i + 1}`, r)), row(`trickle ${TRICKLE_PER_SECOND}/s`, trickle), row('drain (replay, no ingestion)', drain)],
      )}\n\nmedian burst: ${int(median(bursts.map((r) => r.entries / r.totalSeconds)))} entries/s, ${fixed(median(bursts.map((r) => (r.requests / r.entries) * 1000)), 1)} requests per 1,000 entries\n`,
    )
  } finally {
    for (const c of children) c.kill('SIGTERM')
    await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : undefined)))
    await dropScratch(db, redis, name)
    await ctx.shutdown.run('done')
    await sandbox.close()
  }
}

await main()
