/**
 * Gateway benchmarks (compiled to dist/bench/gateway-bench.js; never part of npm test):
 * - presence propagation: POST /control/presence on the sandbox until GET callbacks shows the new activity;
 * - gateway memory: RSS of a real `presence-link gateway` process after its resync, with N members online and
 *   every one of them holding a code.
 * The sandbox runs in this process; the gateway and the front are child processes built from dist/.
 * Run alone: `npm run build && node dist/bench/gateway-bench.js [updates] [members,...]`.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { CODE_ALPHABET } from '../src/core/codes.js'
import { createDatabase, ensureDatabase } from '../src/mysql/connection.js'
import { migrateToLatest } from '../src/mysql/migrate.js'
import { createRedis, waitReady } from '../src/redis/connection.js'
import { buildCodeService } from '../src/runtime/services.js'
import { createSandbox, type Sandbox } from '../src/sandbox/create-sandbox.js'
import { createCodeCache } from '../src/redis/code-cache.js'
import { createRedisKeys } from '../src/redis/keys.js'
import { median, percentile } from './stats.js'
import { dropScratch, freePort } from '../test/helpers/scratch.js'

/** Propagation result, in milliseconds. */
export interface PropagationResult {
  updates: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  /** Baseline in the same run: median of one plain callbacks GET (the poll's own round trip). */
  callbacksGetP50Ms: number
}

/** Gateway memory at one member count. */
export interface GatewayMemoryResult {
  members: number
  rssBytes: number
  resyncSeconds: number
}

const GAMES = ['Minecraft', 'Fortnite', 'Valorant', 'Terraria', 'Celeste', 'Hades', 'Stardew Valley', 'Among Us']

function entry(name: string): string {
  return fileURLToPath(new URL(`../src/${name}.js`, import.meta.url))
}

interface Service {
  child: ChildProcess
  lines: string[]
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>
}

function startService(file: string, env: Record<string, string>): Service {
  const child = spawn(process.execPath, [file], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  const lines: string[] = []
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = []
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line === '') continue
      lines.push(line)
      if (lines.length > 200) lines.shift()
      for (const w of [...waiters]) {
        if (w.pattern.test(line)) {
          waiters.splice(waiters.indexOf(w), 1)
          w.resolve(line)
        }
      }
    }
  }
  child.stdout?.on('data', onData)
  child.stderr?.on('data', onData)
  return {
    child,
    lines,
    waitForLine(pattern, timeoutMs) {
      const seen = lines.find((l) => pattern.test(l))
      if (seen !== undefined) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} in ${timeoutMs} ms; last lines:\n${lines.slice(-10).join('\n')}`)), timeoutMs)
        waiters.push({ pattern, resolve: (l) => (clearTimeout(timer), resolve(l)) })
      })
    },
  }
}

async function stop(service: Service): Promise<void> {
  if (service.child.exitCode !== null) return
  const exited = new Promise<void>((resolve) => service.child.once('exit', () => resolve()))
  service.child.kill('SIGTERM')
  const timer = setTimeout(() => service.child.kill('SIGKILL'), 10_000)
  await exited
  clearTimeout(timer)
}

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 'NaN')
  return kb * 1024
}

/** A unique database and Redis prefix, and everything the measurements share. */
interface World {
  name: string
  databaseUrl: string
  env: Record<string, string>
  sandbox: Sandbox
  cleanup(): Promise<void>
}

async function createWorld(redisUrl: string): Promise<World> {
  const name = `gwbench${randomBytes(4).toString('hex')}`
  const databaseUrl = `mysql://root@127.0.0.1:3306/pl_${name}`
  const sandbox = await createSandbox({ port: 0, rateLimitPerSecond: 0 })
  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: name,
    DISCORD_TOKEN: 'sandbox-token',
    DISCORD_API: sandbox.apiBase,
    ROBLOX_USERS_API: sandbox.robloxBase,
    RATE_LIMITS: 'off',
    LOG_LEVEL: 'info',
    FRONT_WORKERS: '1',
    PORT: String(await freePort()),
    METRICS_PORT: '0',
    GATEWAY_METRICS_PORT: '0',
    HOST: '127.0.0.1',
  }
  await ensureDatabase(databaseUrl)
  const db = createDatabase(databaseUrl, 2)
  await migrateToLatest(db)
  await db.destroy()
  return {
    name,
    databaseUrl,
    env,
    sandbox,
    async cleanup() {
      await sandbox.close()
      const admin = createDatabase(databaseUrl, 1)
      const redis = createRedis(redisUrl, 'request', 'bench-cleanup')
      await waitReady(redis)
      await dropScratch(admin, redis, name)
      await admin.destroy()
      await redis.quit()
    },
  }
}

async function control(sandbox: Sandbox, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${sandbox.url}/control/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  if (!res.ok) throw new Error(`sandbox ${path}: ${res.status} ${await res.text()}`)
  return res.json()
}

/** Measures presence propagation over `updates` updates of one linked user. */
export async function measurePresencePropagation(redisUrl: string, updates = 1000): Promise<PropagationResult> {
  const world = await createWorld(redisUrl)
  const services: Service[] = []
  try {
    const db = createDatabase(world.databaseUrl, 2)
    const redis = createRedis(redisUrl, 'request', 'bench')
    await waitReady(redis)
    const codes = buildCodeService(db, createCodeCache(redis, createRedisKeys(world.name)))
    const user = '900000000000000001'
    await control(world.sandbox, 'members', { id: user, username: 'bench' })
    const { code } = await codes.issue(user)
    await codes.bind(code.code, { platformUserId: '1', platformUsername: 'Bench_User' }, { source: 'bench' })
    await db.destroy()
    await redis.quit()

    const front = startService(entry('front'), world.env)
    services.push(front)
    const url = `http://127.0.0.1:${world.env.PORT}`
    await front.waitForLine(/front listening/, 30_000)
    const gateway = startService(entry('gateway'), world.env)
    services.push(gateway)
    await gateway.waitForLine(/presence resync done/, 60_000)

    const callbacks = `${url}/api/v1/callbacks/${code.code}`
    const gets: number[] = []
    for (let i = 0; i < 200; i++) {
      const started = performance.now()
      await (await fetch(callbacks)).text()
      gets.push(performance.now() - started)
    }
    const samples: number[] = []
    for (let i = 0; i < updates; i++) {
      const marker = `Bench Game ${i}`
      const started = performance.now()
      await control(world.sandbox, 'presence', { user_id: user, status: 'online', activities: [{ type: 0, name: marker }] })
      for (;;) {
        const text = await (await fetch(callbacks)).text()
        if (text.includes(`${marker};`)) break
        if (performance.now() - started > 10_000) throw new Error(`update ${i} not visible after 10 s`)
      }
      samples.push(performance.now() - started)
    }
    return { updates, p50Ms: median(samples), p99Ms: percentile(samples, 99), maxMs: Math.max(...samples), callbacksGetP50Ms: median(gets) }
  } finally {
    for (const s of services.reverse()) await stop(s)
    await world.cleanup()
  }
}

function codeOf(i: number): string {
  let n = i
  let out = ''
  for (let k = 0; k < 4; k++) {
    out = CODE_ALPHABET[n % 36] + out
    n = Math.floor(n / 36)
  }
  return out
}

/** Measures the gateway's RSS after resync with `members` online members who all hold codes. */
export async function measureGatewayMemory(redisUrl: string, members: number): Promise<GatewayMemoryResult> {
  const world = await createWorld(redisUrl)
  let gateway: Service | undefined
  try {
    const db = createDatabase(world.databaseUrl, 2)
    const ids = Array.from({ length: members }, (_, i) => String(910000000000000000n + BigInt(i)))
    for (let i = 0; i < members; i += 5000) {
      const rows = ids.slice(i, i + 5000).map((id, j) => ({ code: codeOf(i + j), chat_user_id: id, state: 'active' as const, paused: false, updated_at: new Date() }))
      await db.insertInto('codes').values(rows).execute()
    }
    await db.destroy()
    for (let i = 0; i < members; i += 10_000) {
      const slice = ids.slice(i, i + 10_000)
      await control(world.sandbox, 'members/bulk', {
        members: slice.map((id, j) => ({ id, username: `member${i + j}` })),
        presences: slice.map((id, j) => ({
          user_id: id,
          status: 'online',
          activities: [
            { type: 0, name: GAMES[(i + j) % GAMES.length] },
            ...((i + j) % 3 === 0 ? [{ type: 2, name: 'Spotify', details: `Song ${i + j}`, state: 'Some Artist; Another Artist' }] : []),
          ],
        })),
      })
    }
    const started = performance.now()
    gateway = startService(entry('gateway'), world.env)
    const done = JSON.parse(await gateway.waitForLine(/presence resync done/, 300_000)) as { written: number }
    const resyncSeconds = (performance.now() - started) / 1000
    if (done.written !== members) throw new Error(`resync wrote ${done.written} presences, expected ${members}`)
    // Let the resync's garbage go before reading the resident size.
    await new Promise((r) => setTimeout(r, 3000))
    const rssBytes = await rssOf(gateway.child.pid!)
    return { members, rssBytes, resyncSeconds }
  } finally {
    if (gateway !== undefined) await stop(gateway)
    await world.cleanup()
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
  const updates = Number(process.argv[2] ?? 1000)
  const counts = (process.argv[3] ?? '0,10000').split(',').map(Number)
  const propagation = await measurePresencePropagation(redisUrl, updates)
  console.log(JSON.stringify({ propagation }))
  for (const n of counts) console.log(JSON.stringify({ memory: await measureGatewayMemory(redisUrl, n) }))
}
