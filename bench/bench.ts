/**
 * `npm run bench`: starts the real service from dist/ as child processes (front with FRONT_WORKERS=1, worker) on a
 * unique MySQL database and Redis prefix with rate limits off, seeds realistic data through the real code paths,
 * measures with autocannon and an open-loop sender, adds the gateway measurements of gateway-bench.ts, writes
 * BENCHMARKS.md at the repository root, and removes everything it created. Never part of `npm test`.
 */
import autocannon, { type Options, type Result } from 'autocannon'
import { fork, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { Agent, request } from 'node:http'
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import type { Redis } from 'ioredis'
import { sql, type Kysely } from 'kysely'
import type { CodeService } from '../src/codes/code-service.js'
import { parseConfig, type Config } from '../src/config.js'
import type { Database } from '../src/mysql/schema.js'
import { createLogger } from '../src/lib/logger.js'
import { renderActivityGroups, type ActivityInput } from '../src/core/activity.js'
import { QueueName } from '../src/queue/names.js'
import { createQueue } from '../src/queue/queues.js'
import { createProcessContext, type ProcessContext } from '../src/runtime/process-context.js'
import { buildApiKeyService, buildCodeService } from '../src/runtime/services.js'
import { openDatabase, openRedis } from '../src/runtime/storage.js'
import { createCodeCache } from '../src/redis/code-cache.js'
import type { PresenceEntry } from '../src/core/presence-entry.js'
import { createPresenceStore, type PresenceStore } from '../src/redis/presence-store.js'
import { measureGatewayMemory, measurePresencePropagation, type GatewayMemoryResult, type PropagationResult } from './gateway-bench.js'
import { bytes, fixed, int, median, percentile, table } from './stats.js'
import { dropScratch, freePort } from '../test/helpers/scratch.js'
import { waitFor } from './wait-for.js'

/** Every knob of the run; written into the report. */
const SETTINGS = {
  runs: 3,
  linkedUsers: 50,
  connections: 50,
  pipelining: 1,
  loadSeconds: 5,
  warmupSeconds: 1,
  bindRate: 100,
  bindSeconds: 10,
  logEvents: 12_000,
  logConnections: 50,
  memoryUsers: 1000,
  frontWorkers: 1,
  propagationUpdates: 300,
  gatewayMembers: [10_000, 100_000],
} as const

const ROOT = new URL('../../', import.meta.url)
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url))
const CEILING = fileURLToPath(new URL('./ceiling-server.js', import.meta.url))
const REPORT = new URL('BENCHMARKS.md', ROOT)

const log = (message: string) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// ---------------------------------------------------------------------------------------------------------------
// Processes

interface Child {
  name: string
  proc: ChildProcess
  tail: string[]
}

const children: Child[] = []

function keepTail(child: Child, stream: NodeJS.ReadableStream | null): void {
  stream?.on('data', (d: Buffer) => {
    child.tail.push(...d.toString().split('\n').filter((l) => l !== ''))
    if (child.tail.length > 30) child.tail.splice(0, child.tail.length - 30)
  })
}

function startService(name: string, args: string[], env: Record<string, string>): Child {
  const proc = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  const child: Child = { name, proc, tail: [] }
  keepTail(child, proc.stdout)
  keepTail(child, proc.stderr)
  proc.once('exit', (code, signal) => {
    if (!stopping) log(`${name} exited early (code ${code}, signal ${signal}):\n${child.tail.join('\n')}`)
  })
  children.push(child)
  return child
}

let stopping = false

async function stopAll(): Promise<void> {
  stopping = true
  await Promise.all(
    children.map(async (c) => {
      if (c.proc.exitCode !== null || c.proc.signalCode !== null) return
      const exited = new Promise((r) => c.proc.once('exit', r))
      c.proc.kill('SIGTERM')
      const timer = setTimeout(() => {
        log(`${c.name} did not stop within 15 s of SIGTERM; killing it`)
        c.proc.kill('SIGKILL')
      }, 15_000)
      await exited
      clearTimeout(timer)
    }),
  )
}

async function startCeiling(port: number, callbacks: string, rpc: string): Promise<number> {
  const proc = fork(CEILING, [], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
  const child: Child = { name: 'ceiling', proc, tail: [] }
  keepTail(child, proc.stdout)
  keepTail(child, proc.stderr)
  children.push(child)
  await new Promise<void>((resolve, reject) => {
    proc.once('message', (m: { ready?: boolean; error?: string }) => (m.ready === true ? resolve() : reject(new Error(m.error))))
    proc.once('exit', (code) => reject(new Error(`ceiling exited with ${code}: ${child.tail.join('\n')}`)))
    proc.send({ port, callbacks, rpc })
  })
  return proc.pid ?? 0
}

// ---------------------------------------------------------------------------------------------------------------
// Seeding through the real code paths

const SONGS: ReadonlyArray<readonly [string, string]> = [
  ['Blinding Lights', 'The Weeknd'],
  ['Levitating', 'Dua Lipa'],
  ['Bohemian Rhapsody', 'Queen'],
  ['Señorita', 'Shawn Mendes; Camila Cabello'],
  ['Anti-Hero', 'Taylor Swift'],
  ['HUMBLE.', 'Kendrick Lamar'],
  ['Stay', 'The Kid LAROI, Justin Bieber'],
  ['Flowers 🌸', 'Miley Cyrus'],
]
const GAMES = ['Minecraft', 'Fortnite', 'Valorant', 'Rocket League', 'Among Us', 'Genshin Impact', 'Terraria', 'Stardew Valley']

/** A realistic mix: music and a game, a game alone, video, one naming the game platform (filtered), or offline. */
function activitiesOf(i: number): ActivityInput[] | null {
  const [title, artist] = SONGS[i % SONGS.length]!
  const spotify: ActivityInput = { type: 2, name: 'Spotify', details: title, state: artist, assets: { large_text: `${title} (Deluxe)` } }
  const game: ActivityInput = { type: 0, name: GAMES[i % GAMES.length]!, details: 'Ranked match', state: 'In a party (3 of 5)' }
  switch (i % 10) {
    case 0:
    case 1:
    case 2:
    case 3:
      return [spotify, game]
    case 4:
    case 5:
    case 6:
      return [game, { type: 4, name: 'Custom Status', state: 'grinding 🎮' }]
    case 7:
      return [{ type: 3, name: 'YouTube', details: 'lofi hip hop radio 📚 beats to relax/study to', state: 'Lofi Girl' }]
    case 8:
      return [{ type: 0, name: 'Roblox', details: 'Adopt Me!' }, spotify]
    default:
      return null
  }
}

interface Seeded {
  codes: string[]
}

/** Issues codes with the code service, binds them through the API (the worker does the bind), writes presences. */
async function seedLinkedUsers(env: Env, count: number): Promise<Seeded> {
  const codes: string[] = []
  const entries: Array<[string, PresenceEntry]> = []
  for (let i = 0; i < count; i++) {
    const chatUser = String(200_000_000_000_000_000n + BigInt(i))
    const { code } = await env.codes.issue(chatUser)
    const res = await postJson(`${env.api}/bind`, { code: code.code, platform_username: `Player_${i}`, platform_user_id: 10_000 + i }, env.bearer)
    if ((res.body as { status?: string }).status !== 'bound') throw new Error(`seed bind of ${code.code} gave ${res.status} ${JSON.stringify(res.body)}`)
    codes.push(code.code)
    const activities = activitiesOf(i)
    if (activities !== null) {
      entries.push([code.code, { shard: 0, status: i % 3 === 0 ? 'idle' : 'online', activity: renderActivityGroups(activities, env.config.gamePlatformName) }])
    }
  }
  await env.presence.setMany(entries)
  await env.presence.heartbeat(0, Date.now() + 3_600_000)
  return { codes }
}

/** Runs `fn` over `items` with at most `width` at once. */
async function pool<T, R>(items: readonly T[], width: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++
        out[i] = await fn(items[i]!, i)
      }
    }),
  )
  return out
}

async function issueFresh(codes: CodeService, count: number, base: bigint): Promise<string[]> {
  return pool([...Array(count).keys()], 8, async (i) => (await codes.issue(String(base + BigInt(i)))).code.code)
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP

const agent = new Agent({ keepAlive: true, maxSockets: 64 })

function send(url: string, method: string, body: string | undefined, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function postJson(url: string, body: unknown, bearer: string): Promise<{ status: number; body: unknown }> {
  const res = await send(url, 'POST', JSON.stringify(body), { 'content-type': 'application/json', authorization: bearer })
  return { status: res.status, body: JSON.parse(res.text) as unknown }
}

function cannon(url: string, seconds: number, extra: Partial<Options> = {}): Promise<Result> {
  return autocannon({ url, connections: SETTINGS.connections, pipelining: SETTINGS.pipelining, duration: seconds, ...extra })
}

// ---------------------------------------------------------------------------------------------------------------
// Measurements

interface Env {
  config: Config
  ctx: ProcessContext
  db: Kysely<Database>
  redis: Redis
  codes: CodeService
  presence: PresenceStore
  api: string
  ceiling: string
  bearer: string
  frontWorkerPids: () => Promise<number[]>
  ceilingPid: number[]
  redisPid: number | undefined
}

interface LoadRun {
  reqPerSec: number
  p50: number
  p99: number
  bad: number
  /** CPU cores used during the run by the server side (front workers + Redis, or the ceiling) and by autocannon. */
  serverCores: number
  redisCores: number
  loadCores: number
}

/** Processes whose CPU time is sampled around each run. */
interface CpuTargets {
  server: () => Promise<number[]>
  redis: number | undefined
}

/** User + system CPU seconds of a process from /proc (Linux); NaN elsewhere. */
async function cpuSeconds(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // After the command name: state is field 3, utime field 14 and stime field 15, in clock ticks (100 per second).
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return Number.NaN
  }
}

async function childPids(pid: number): Promise<number[]> {
  try {
    return (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).trim().split(/\s+/).filter((x) => x !== '').map(Number)
  } catch {
    return []
  }
}

async function sumCpu(pids: readonly number[]): Promise<number> {
  return (await Promise.all(pids.map(cpuSeconds))).reduce((a, b) => a + b, 0)
}

/** One autocannon run with the CPU each side used. */
async function measuredRun(url: string, cpu: CpuTargets): Promise<LoadRun> {
  const pids = await cpu.server()
  const before = { server: await sumCpu(pids), redis: cpu.redis === undefined ? Number.NaN : await cpuSeconds(cpu.redis), load: process.cpuUsage() }
  const started = performance.now()
  const r = await cannon(url, SETTINGS.loadSeconds)
  const wall = (performance.now() - started) / 1000
  const load = process.cpuUsage(before.load)
  const redis = cpu.redis === undefined ? Number.NaN : (await cpuSeconds(cpu.redis)) - before.redis
  return {
    reqPerSec: r['2xx'] / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    bad: r.non2xx + r.errors + r.timeouts,
    serverCores: ((await sumCpu(pids)) - before.server) / wall,
    redisCores: redis / wall,
    loadCores: (load.user + load.system) / 1e6 / wall,
  }
}

interface Comparison {
  route: 'callbacks' | 'rpc'
  bodyBytes: number
  service: LoadRun[]
  ceiling: LoadRun[]
}

/** Alternates service and ceiling runs so machine noise hits both alike. */
async function compareWithCeiling(env: Env, route: 'callbacks' | 'rpc', path: string, bodyBytes: number): Promise<Comparison> {
  const service = `${env.api}/${route}/${path}`
  const ceiling = `${env.ceiling}/${route}/${path}`
  await cannon(service, SETTINGS.warmupSeconds)
  await cannon(ceiling, SETTINGS.warmupSeconds)
  const out: Comparison = { route, bodyBytes, service: [], ceiling: [] }
  for (let run = 1; run <= SETTINGS.runs; run++) {
    const s = await measuredRun(service, { server: env.frontWorkerPids, redis: env.redisPid })
    const c = await measuredRun(ceiling, { server: async () => env.ceilingPid, redis: env.redisPid })
    if (s.bad > 0) throw new Error(`${route}: ${s.bad} failed requests in run ${run}`)
    out.service.push(s)
    out.ceiling.push(c)
    log(
      `${route} run ${run}: service ${int(s.reqPerSec)} req/s p99 ${s.p99} ms (front ${fixed(s.serverCores)} + Redis ${fixed(s.redisCores)} + load ${fixed(s.loadCores)} cores), ` +
        `ceiling ${int(c.reqPerSec)} req/s p99 ${c.p99} ms (${fixed(c.serverCores)} + load ${fixed(c.loadCores)} cores)`,
    )
  }
  return out
}

interface BindRun {
  sent: number
  bound: number
  p50: number
  p99: number
  max: number
}

/**
 * Open loop at a fixed rate: request i is due at start + i/rate, and its latency counts from that due time,
 * so a slow response delays nothing else and cannot hide queueing (no coordinated omission).
 */
async function bindAtFixedRate(env: Env, codes: readonly string[], run: number): Promise<BindRun> {
  const count = SETTINGS.bindRate * SETTINGS.bindSeconds
  const interval = 1000 / SETTINGS.bindRate
  const latencies: number[] = []
  let bound = 0
  const pending: Promise<void>[] = []
  const start = performance.now() + 50
  for (let i = 0; i < count; i++) {
    const due = start + i * interval
    const wait = due - performance.now()
    if (wait > 1) await sleep(wait)
    const body = { code: codes[i]!, platform_username: `Bench_${run}_${i}`, platform_user_id: 1_000_000 * run + i + 1 }
    pending.push(
      postJson(`${env.api}/bind`, body, env.bearer).then((res) => {
        latencies.push(performance.now() - due)
        if ((res.body as { status?: string }).status === 'bound') bound++
      }),
    )
  }
  await Promise.all(pending)
  return { sent: count, bound, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies) }
}

interface LogRun {
  accepted: number
  acceptedPerSec: number
  loadSeconds: number
  drainSeconds: number
  stored: number
  rejected: number
}

/** Posts log events as fast as autocannon can for a while, then waits until MySQL holds every accepted one. */
async function logRun(env: Env, run: number): Promise<LogRun> {
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
    url: `${env.api}/log/server`,
    method: 'POST',
    connections: SETTINGS.logConnections,
    pipelining: SETTINGS.pipelining,
    // A fixed amount, not a duration: autocannon then waits for every response, so its 2xx count is exact.
    amount: SETTINGS.logEvents,
    // autocannon notices the end only at its next sample tick (1 s by default), which would stretch the timing.
    sampleInt: 50,
    headers: { 'content-type': 'application/json', authorization: env.bearer },
    body,
  })
  const loadEnded = performance.now()
  const loadSeconds = (loadEnded - loadStarted) / 1000
  const accepted = result['2xx']
  const countStored = async () => {
    const row = await env.db
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

interface MemoryResult {
  users: number
  keyBytesPerUser: number
  usedMemoryPerUser: number
  encodings: string
}

async function memoryUsage(redis: Redis, key: string): Promise<number> {
  return Number((await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0)
}

async function usedMemory(redis: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? Number.NaN)
}

/** Redis bytes per linked user: the growth of the code, holder and presence hashes over N more linked users. */
async function redisBytesPerUser(env: Env): Promise<MemoryResult> {
  const keys = [env.ctx.keys.codes, env.ctx.keys.holders, env.ctx.keys.presence]
  const sum = async () => (await Promise.all(keys.map((k) => memoryUsage(env.redis, k)))).reduce((a, b) => a + b, 0)
  const n = SETTINGS.memoryUsers
  const beforeKeys = await sum()
  const beforeUsed = await usedMemory(env.redis)
  const base = 400_000_000_000_000_000n
  const entries = await pool([...Array(n).keys()], 8, async (i) => {
    const chatUser = String(base + BigInt(i))
    const { code } = await env.codes.issue(chatUser)
    const bound = await env.codes.bind(code.code, { platformUserId: String(5_000_000 + i), platformUsername: `Member_${i}` }, { source: 'bench' })
    if (bound.status !== 'bound') throw new Error(`memory seed bind gave ${bound.status}`)
    const activities = activitiesOf(i) ?? []
    return [code.code, { shard: 0, status: 'online', activity: renderActivityGroups(activities, env.config.gamePlatformName) }] as [string, PresenceEntry]
  })
  await env.presence.setMany(entries)
  const afterKeys = await sum()
  const afterUsed = await usedMemory(env.redis)
  const encodings = (await Promise.all(keys.map(async (k) => `${k.slice(env.ctx.keys.prefix.length + 1)}: ${String(await env.redis.call('OBJECT', 'ENCODING', k))}`))).join(', ')
  return { users: n, keyBytesPerUser: (afterKeys - beforeKeys) / n, usedMemoryPerUser: (afterUsed - beforeUsed) / n, encodings }
}

// ---------------------------------------------------------------------------------------------------------------
// Report

interface Machine {
  load: string
  cpu: string
  cores: number
  memory: string
  os: string
  node: string
  redis: string
  mysql: string
  packages: Array<[string, string]>
}

async function packageVersion(name: string): Promise<string> {
  try {
    const pkg = JSON.parse(await readFile(new URL(`node_modules/${name}/package.json`, ROOT), 'utf8')) as { name?: string; version?: string }
    return name === 'uWebSockets.js' ? `${pkg.name ?? '?'}@${pkg.version ?? '?'}` : (pkg.version ?? '?')
  } catch {
    return 'not installed'
  }
}

async function describeMachine(env: Env): Promise<Machine> {
  const redisInfo = await env.redis.info('server')
  const version = await sql<{ v: string }>`SELECT VERSION() AS v`.execute(env.db)
  const packages: Array<[string, string]> = []
  for (const name of ['hyper-express', 'uWebSockets.js', 'bullmq', 'ioredis', 'kysely', 'mysql2', 'prom-client', 'rate-limiter-flexible', 'autocannon']) {
    packages.push([name, await packageVersion(name)])
  }
  return {
    load: os.loadavg().map((l) => l.toFixed(2)).join(', '),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memory: bytes(os.totalmem()),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    redis: /redis_version:(\S+)/.exec(redisInfo)?.[1] ?? '?',
    mysql: version.rows[0]?.v ?? '?',
    packages,
  }
}

interface Results {
  startedAt: Date
  seconds: number
  machine: Machine
  callbacks: Comparison
  rpc: Comparison
  bind: BindRun[]
  log: LogRun[]
  memory: MemoryResult
  propagation: PropagationResult[]
  gateway: GatewayMemoryResult[]
}

function comparisonSection(title: string, c: Comparison): string {
  const med = (runs: LoadRun[], f: (r: LoadRun) => number) => median(runs.map(f))
  const s = med(c.service, (r) => r.reqPerSec)
  const ceil = med(c.ceiling, (r) => r.reqPerSec)
  const codes = SETTINGS.linkedUsers
  const row = (name: string, runs: LoadRun[], server: string, ratio: string) => [
    name,
    int(med(runs, (r) => r.reqPerSec)),
    int(med(runs, (r) => r.reqPerSec) * codes),
    fixed(med(runs, (r) => r.p50), 0),
    fixed(med(runs, (r) => r.p99), 0),
    ratio,
    server,
    fixed(med(runs, (r) => r.loadCores)),
  ]
  return [
    `### ${title}`,
    '',
    `GET \`/api/v1/${c.route}/{${codes} codes}\`, response body ${int(c.bodyBytes)} bytes; the ceiling answers the same body from memory.`,
    '',
    table(
      ['target', 'req/s', 'codes/s', 'p50 ms', 'p99 ms', 'ratio to ceiling', 'server CPU (cores)', 'autocannon CPU (cores)'],
      [
        row(
          `presence-link front (FRONT_WORKERS=${SETTINGS.frontWorkers})`,
          c.service,
          `${fixed(med(c.service, (r) => r.serverCores))} front + ${fixed(med(c.service, (r) => r.redisCores))} Redis`,
          fixed(s / ceil, 2),
        ),
        row('ceiling: plain hyper-express, precomputed body', c.ceiling, fixed(med(c.ceiling, (r) => r.serverCores)), '1.00'),
      ],
    ),
    '',
    `Runs (service / ceiling req/s): ${c.service.map((r, i) => `${int(r.reqPerSec)} / ${int(c.ceiling[i]!.reqPerSec)}`).join('; ')}.`,
  ].join('\n')
}

function render(r: Results): string {
  const m = r.machine
  const bind = r.bind
  const logs = r.log
  const lost = logs.map((l) => l.accepted - l.stored)
  return `# Benchmarks

Generated by \`npm run bench\` (bench/bench.ts) on ${r.startedAt.toISOString()}; the whole run took ${int(r.seconds)} s.
Figures are **medians of ${SETTINGS.runs} runs**. These machines are noisy: compare ratios more than absolute numbers.

## Machine

${table(
  ['what', 'value'],
  [
    ['CPU', `${m.cpu}, ${m.cores} cores`],
    ['memory', m.memory],
    ['load average when the run began (1, 5, 15 min)', m.load],
    ['OS', m.os],
    ['Node', m.node],
    ['Redis', m.redis],
    ['MySQL server', m.mysql],
    ...m.packages.map(([name, version]): [string, string] => [name, version]),
  ],
)}

## How it runs

- Command: \`npm run bench\` (= \`npm run build && node dist/bench/bench.js\`).
- Processes: \`node dist/src/cli.js front\` with \`FRONT_WORKERS=${SETTINGS.frontWorkers}\` and \`node dist/src/cli.js worker\`, \`RATE_LIMITS=off\`, \`LOG_LEVEL=warn\`,
  a fresh database \`pl_bench…\` and Redis prefix (both removed afterwards). The load generator (autocannon) runs in the bench process on the same machine:
  on ${m.cores} cores it competes with the server for CPU, which is why the ceiling runs under the same conditions.
- Data: ${SETTINGS.linkedUsers} users with codes issued by the code service and bound through \`POST /api/v1/bind\`; their presences written with the presence store,
  activities rendered by \`renderActivityGroups\` (music with a game, a game with a custom status, a video, one naming the game platform that is filtered out, some offline).
- Gateway figures (bench/gateway-bench.ts): the Discord sandbox in the bench process, \`presence-link gateway\` and a front as child processes, on their own database and prefix.
- Load: autocannon, ${SETTINGS.connections} connections, pipelining ${SETTINGS.pipelining}, ${SETTINGS.loadSeconds} s per run after a ${SETTINGS.warmupSeconds} s warm-up; service and ceiling runs alternate.
  autocannon reports latency in whole milliseconds. CPU columns: CPU time used during the run (from /proc) divided by its length, for the
  front's cluster worker and redis-server, or for the ceiling process, and for autocannon itself; ${m.cores} cores means at most ${m.cores}.00 in all.

## Results

${comparisonSection('Callbacks, 50 codes per request', r.callbacks)}

${comparisonSection('RPC, 50 codes per request', r.rpc)}

### Bind at a fixed rate

${SETTINGS.bindRate} requests/s for ${SETTINGS.bindSeconds} s per run, each with a fresh code and a new account (open loop: latency counts from each request's due time).
The bind goes front → BullMQ → worker (MySQL transaction, Redis write-through) → back to the waiting front.

${table(
  ['p50 ms (median)', 'p99 ms (median)', 'worst max ms', 'bound / sent (every run)'],
  [[fixed(median(bind.map((b) => b.p50))), fixed(median(bind.map((b) => b.p99))), fixed(Math.max(...bind.map((b) => b.max))), bind.map((b) => `${b.bound}/${b.sent}`).join(', ')]],
)}

### Log events: accepted, then stored

autocannon posts ${int(SETTINGS.logEvents)} events to \`POST /api/v1/log/server\` per run over ${SETTINGS.logConnections} connections, as fast as they are accepted;
then the bench waits until MySQL holds every accepted (200) event and checks that the stored count equals the accepted count.

${table(
  ['accepted/s (median)', 'drain after load, s (median)', 'stored/s end to end (median)', 'lost (accepted − stored), every run', 'rejected'],
  [
    [
      int(median(logs.map((l) => l.acceptedPerSec))),
      fixed(median(logs.map((l) => l.drainSeconds))),
      int(median(logs.map((l) => l.stored / (l.loadSeconds + l.drainSeconds)))),
      lost.join(', '),
      logs.map((l) => l.rejected).join(', '),
    ],
  ],
)}

Zero-loss check: ${lost.every((n) => n === 0) ? '**passed**: every accepted event was stored exactly once in every run' : '**FAILED**: see the lost column'}.
Runs (accepted events): ${logs.map((l) => int(l.accepted)).join(', ')}.

### Memory

${table(
  ['what', 'value'],
  [
    ['Redis bytes per linked user (MEMORY USAGE of the code, holder and presence hashes)', `${int(r.memory.keyBytesPerUser)} B`],
    ['Redis used_memory growth per linked user (INFO memory)', `${int(r.memory.usedMemoryPerUser)} B`],
    ['measured over', `${int(r.memory.users)} users linked through the code service, each with a rendered presence (${r.memory.encodings})`],
  ],
)}

### Presence propagation (gateway)

The sandbox sends a PRESENCE_UPDATE for a linked user; the clock stops when \`GET /api/v1/callbacks/{code}\` (polled back to back) shows the new activity.
Path: sandbox gateway socket → discord.js in \`presence-link gateway\` → Redis presence hash → front. ${SETTINGS.propagationUpdates} updates per run (bench/gateway-bench.ts).

${table(
  ['p50 ms (median)', 'p99 ms (median)', 'worst max ms', 'one callbacks GET p50 ms (the polling floor)'],
  [[fixed(median(r.propagation.map((p) => p.p50Ms))), fixed(median(r.propagation.map((p) => p.p99Ms))), fixed(Math.max(...r.propagation.map((p) => p.maxMs))), fixed(median(r.propagation.map((p) => p.callbacksGetP50Ms)))]],
)}

### Gateway memory

A real \`presence-link gateway\` process after its resync, every member online with a presence and holding a code (one run per size).

${table(
  ['members', 'gateway RSS', 'resync time, s'],
  r.gateway.map((g) => [int(g.members), bytes(g.rssBytes), fixed(g.resyncSeconds)]),
)}
`
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const startedAt = new Date()
  const name = `bench${randomBytes(4).toString('hex')}`
  const base = parseConfig(process.env)
  if (!base.ok) throw new Error(`invalid environment: ${base.problems.join('; ')}`)
  const databaseUrl = new URL(base.config.databaseUrl)
  databaseUrl.pathname = `/pl_${name}`
  const [port, ceilingPort] = [await freePort(), await freePort()]
  const serviceEnv: Record<string, string> = {
    DATABASE_URL: databaseUrl.toString(),
    REDIS_URL: base.config.redisUrl,
    REDIS_PREFIX: name,
    HOST: '127.0.0.1',
    PORT: String(port),
    FRONT_WORKERS: String(SETTINGS.frontWorkers),
    METRICS_PORT: '0',
    WORKER_METRICS_PORT: '0',
    RATE_LIMITS: 'off',
    LOG_LEVEL: 'warn',
    ROBLOX_USERS_API: 'http://127.0.0.1:9',
  }
  const parsed = parseConfig({ ...process.env, ...serviceEnv })
  if (!parsed.ok) throw new Error(parsed.problems.join('; '))
  const config = parsed.config
  const ctx = createProcessContext('bench', config, createLogger('bench', 'warn'))
  log(`database ${databaseUrl.pathname.slice(1)}, Redis prefix ${name}`)
  let db: Kysely<Database> | undefined
  let redis: Redis | undefined
  try {
    db = await openDatabase(ctx, 8)
    redis = await openRedis(ctx, 'request', 'bench')
    const codes = buildCodeService(db, createCodeCache(redis, ctx.keys))
    const presence = createPresenceStore(redis, ctx.keys)
    const key = await buildApiKeyService(db, redis, ctx.keys).create('bench')
    if (!key.ok) throw new Error('could not create the bench API key')

    startService('worker', ['worker'], serviceEnv)
    const front = startService('front', ['front'], serviceEnv)
    const api = `http://127.0.0.1:${port}/api/v1`
    await waitFor('the front', async () => (await send(`http://127.0.0.1:${port}/readyz`, 'GET', undefined, {})).status === 200)
    const queues = [createQueue(QueueName.Bind, redis, ctx.keys.bullPrefix), createQueue(QueueName.Log, redis, ctx.keys.bullPrefix)]
    await waitFor('the worker', async () => (await Promise.all(queues.map((q) => q.getWorkersCount()))).every((n) => n > 0))
    await Promise.all(queues.map((q) => q.close()))
    log('front and worker are up')

    const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1] ?? Number.NaN)
    const env: Env = {
      config,
      ctx,
      db,
      redis,
      codes,
      presence,
      api,
      ceiling: `http://127.0.0.1:${ceilingPort}/api/v1`,
      bearer: `Bearer ${key.key}`,
      // The front child is the cluster primary; the requests are served by its workers.
      frontWorkerPids: () => childPids(front.proc.pid ?? 0),
      ceilingPid: [],
      // Redis's CPU can only be read when it runs on this machine.
      redisPid: /^redis:\/\/(127\.0\.0\.1|localhost)[:/]/.test(config.redisUrl) && Number.isFinite(redisPid) ? redisPid : undefined,
    }
    const machine = await describeMachine(env)
    const seeded = await seedLinkedUsers(env, SETTINGS.linkedUsers)
    const path = seeded.codes.join('&')
    const callbacksBody = await send(`${api}/callbacks/${path}`, 'GET', undefined, {})
    const rpcBody = await send(`${api}/rpc/${path}`, 'GET', undefined, {})
    for (const [route, res] of [['callbacks', callbacksBody], ['rpc', rpcBody]] as const) {
      const blocks = res.text.split('\n').filter((l) => l.startsWith('{')).length
      if (res.status !== 200 || blocks !== SETTINGS.linkedUsers) throw new Error(`${route} answered ${res.status} with ${blocks} blocks`)
    }
    log(`seeded ${SETTINGS.linkedUsers} linked users; callbacks body ${callbacksBody.text.length} chars, rpc ${rpcBody.text.length}`)
    env.ceilingPid.push(await startCeiling(ceilingPort, callbacksBody.text, rpcBody.text))

    const callbacks = await compareWithCeiling(env, 'callbacks', path, Buffer.byteLength(callbacksBody.text))
    const rpc = await compareWithCeiling(env, 'rpc', path, Buffer.byteLength(rpcBody.text))

    const memory = await redisBytesPerUser(env)
    log(`Redis: ${int(memory.keyBytesPerUser)} B per linked user (${memory.encodings})`)

    const perRun = SETTINGS.bindRate * SETTINGS.bindSeconds
    const bind: BindRun[] = []
    for (let run = 1; run <= SETTINGS.runs; run++) {
      const fresh = await issueFresh(codes, perRun, 600_000_000_000_000_000n + BigInt(run) * 1_000_000n)
      const b = await bindAtFixedRate(env, fresh, run)
      bind.push(b)
      log(`bind run ${run}: p50 ${fixed(b.p50)} ms, p99 ${fixed(b.p99)} ms, bound ${b.bound}/${b.sent}`)
    }

    const logs: LogRun[] = []
    for (let run = 1; run <= SETTINGS.runs; run++) {
      const l = await logRun(env, run)
      logs.push(l)
      log(`log run ${run}: accepted ${int(l.accepted)} (${int(l.acceptedPerSec)}/s), stored ${int(l.stored)} after ${fixed(l.drainSeconds)} s more`)
    }
    // The gateway measurements (bench/gateway-bench.ts) run their own sandbox, front and gateway on their own database and prefix.
    const propagation: PropagationResult[] = []
    for (let run = 1; run <= SETTINGS.runs; run++) {
      const p = await measurePresencePropagation(config.redisUrl, SETTINGS.propagationUpdates)
      propagation.push(p)
      log(`presence propagation run ${run}: p50 ${fixed(p.p50Ms)} ms, p99 ${fixed(p.p99Ms)} ms`)
    }
    const gateway: GatewayMemoryResult[] = []
    for (const members of SETTINGS.gatewayMembers) {
      const g = await measureGatewayMemory(config.redisUrl, members)
      gateway.push(g)
      log(`gateway with ${int(members)} members: RSS ${bytes(g.rssBytes)}, resync ${fixed(g.resyncSeconds)} s`)
    }

    const results: Results = {
      startedAt,
      seconds: (Date.now() - startedAt.getTime()) / 1000,
      machine,
      callbacks,
      rpc,
      bind,
      log: logs,
      memory,
      propagation,
      gateway,
    }
    await writeFile(REPORT, render(results))
    log(`wrote ${fileURLToPath(REPORT)}`)
  } finally {
    await stopAll()
    agent.destroy()
    try {
      if (db !== undefined && redis !== undefined) await dropScratch(db, redis, name)
    } finally {
      await ctx.shutdown.run('bench done')
    }
    log('cleaned up')
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the service processes`)
    void stopAll().then(() => process.exit(130))
  })
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`)
    process.exit(1)
  },
)
