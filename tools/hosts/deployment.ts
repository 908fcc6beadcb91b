/**
 * The whole service laid out on the test hosts, as the README's production layout describes it: Redis's primary on
 * `data-a`, a replica on each of `data-b` and `data-c` and a Sentinel on all three (tools/hosts/redis-set.ts), a
 * MariaDB Galera node on each of `data-a`, `data-b` and `data-c` (tools/hosts/galera.ts) reached through the balancer's
 * `:3306`, the sandbox (fake Discord with two shards, fake Roblox) on `sandbox`, one gateway per shard, one worker
 * host, two fronts behind HAProxy on `lb` (haproxy/haproxy.cfg, unchanged). Every part runs from the built dist/
 * inside its host's namespace and reaches the others by host name (`mysql://…@lb:3306`; Redis through the Sentinels), as
 * it would across machines. The harness (root namespace) keeps its own Redis and MySQL connections (through the
 * balancer, like the parts) for checking what was stored, and can ask each Galera node directly (`galera`).
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Redis } from 'ioredis'
import type { Kysely } from 'kysely'
import { parseConfig } from '../../src/config.js'
import { createLogger } from '../../src/lib/logger.js'
import type { Database } from '../../src/mysql/schema.js'
import { createProcessContext, type ProcessContext } from '../../src/runtime/process-context.js'
import { openDatabase, openRedis } from '../../src/runtime/storage.js'
import { distFile, startProcess, type BenchProcess } from '../harness/processes.js'
import { sleep, waitFor } from '../harness/readiness.js'
import { startGalera, type GaleraCluster } from './galera.js'
import { inHost } from './netns.js'
import { SENTINEL_NAME, startRedisSet, type RedisSet } from './redis-set.js'
import { hostOf, type DataHost, type HostName } from './topology.js'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
/** The balancer configuration that ships in the repository; the harness runs exactly this file. */
export const HAPROXY_CONFIG = join(ROOT, 'haproxy', 'haproxy.cfg')
/** The balancer's Galera health check (haproxy.cfg reads its path from GALERA_CHECK). */
export const GALERA_CHECK = join(ROOT, 'haproxy', 'galera-check.sh')

/** The service's parts as placed on the hosts (each part's name is its host's). */
export type PartName = 'sandbox' | 'gateway-a' | 'gateway-b' | 'worker' | 'front-a' | 'front-b'

const COMMAND: Record<PartName, string> = {
  sandbox: 'sandbox',
  'gateway-a': 'gateway',
  'gateway-b': 'gateway',
  worker: 'worker',
  'front-a': 'front',
  'front-b': 'front',
}

/** Ports the parts listen on, the same on every host (each host has its own network stack). */
export const PORTS = { api: 8080, lbStats: 8404, frontMetrics: 9464, workerMetrics: 9465, gatewayMetrics: 9466, sandbox: 8090, redis: 6379, mysql: 3306 } as const

/** Where a part answers `/readyz` (the sandbox: its control state). */
function readyUrl(part: PartName): string {
  const host = hostOf(part).address
  if (part === 'sandbox') return `http://${host}:${PORTS.sandbox}/control/state`
  if (part === 'worker') return `http://${host}:${PORTS.workerMetrics}/readyz`
  if (part.startsWith('gateway')) return `http://${host}:${PORTS.gatewayMetrics}/readyz`
  return `http://${host}:${PORTS.api}/readyz`
}

/** The sandbox's world as the deployment set it up: a guild on each shard, the staff role, the log channels. */
export interface SandboxWorld {
  /** Guild id per shard (0 and 1). */
  guildOfShard: [string, string]
  staffRoleId: string
  logChannels: { server: string; ingame: string; moderation: string }
}

/** A running deployment. */
export interface Deployment {
  /** The API through the balancer: `http://lb:8080/api/v1` by address. */
  api: string
  /** The API of one front directly (bypassing the balancer). */
  frontApi(front: 'front-a' | 'front-b'): string
  /** The sandbox's control API. */
  control: string
  /** `Bearer <key>` of an API key made with `presence-link keys create` on the worker host. */
  bearer: string
  world: SandboxWorld
  /** The parts now running, by name. */
  parts: Map<PartName, BenchProcess>
  lb: BenchProcess
  /** The harness's own connections to the data host (through the bridge). */
  redis: Redis
  db: Kysely<Database>
  /** Starts (or restarts) a part and waits until it answers /readyz; `env` is added to its environment. */
  start(part: PartName, env?: Record<string, string>): Promise<BenchProcess>
  /** Stops a part (SIGTERM, then SIGKILL). */
  stop(part: PartName): Promise<void>
  /** Epoch ms of the balancer's last check that changed a front's state, and its states: `UP`, `DOWN`, ... */
  lbStates(): Promise<Record<'front-a' | 'front-b', string>>
  /** The balancer's view of the Galera nodes: state (`UP`, `DOWN`...) and open connections, by node. */
  dbStates(): Promise<Record<DataHost, { status: string; sessions: number }>>
  /** The Galera cluster, node by node. */
  galera: GaleraCluster
  /** The Redis primary, replicas and Sentinels, node by node. */
  redisSet: RedisSet
  /** Sums the samples of metric `name` on a part's /metrics whose labels include `labels`; NaN when there are none. */
  metric(part: PartName, name: string, labels?: Record<string, string>): Promise<number>
  close(): Promise<void>
}

async function get(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(3000) })
  return { status: res.status, text: await res.text() }
}

async function controlCall<T>(control: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${control}/${path}`, {
    method,
    ...(method === 'GET' ? {} : { headers: { 'content-type': 'application/json' } }),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  })
  if (!res.ok) throw new Error(`sandbox ${method} ${path}: ${res.status} ${await res.text()}`)
  return (await res.json()) as T
}

/** Runs a one-off CLI command on a host (migrate, keys create) and returns its last output line. */
function cliOnHost(host: HostName, env: Record<string, string>, args: readonly string[]): string {
  const { file, args: wrapped } = inHost(host, process.execPath, [distFile('src/cli.js'), ...args])
  const res = spawnSync(file, wrapped, { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 })
  if (res.status !== 0) throw new Error(`presence-link ${args.join(' ')} on ${host} failed (${res.status}): ${res.stderr}${res.stdout}`)
  return res.stdout.trim().split('\n').pop() ?? ''
}

/** Starts the data servers, the sandbox, both gateways, the worker, both fronts and the balancer. */
export async function deploy(tmp: string, log: (message: string) => void): Promise<Deployment> {
  const lbHost = hostOf('lb').address
  const redisPassword = randomBytes(12).toString('hex')
  const dbPassword = randomBytes(12).toString('hex')
  // A service user reachable from the hosts' subnet, as production would have; root stays on each node's socket.
  const [galera, redisSet] = await Promise.all([
    startGalera(join(tmp, 'galera'), dbPassword, log),
    startRedisSet(join(tmp, 'redis'), redisPassword, randomBytes(12).toString('hex'), log),
  ])
  // The balancer first: MySQL is reached through it (its fronts come up as the parts start).
  const lb = startProcess({ name: 'haproxy', script: '', command: inHost('lb', 'haproxy', ['-db', '-f', HAPROXY_CONFIG]), env: { GALERA_CHECK } })
  const lbCsv = async () => (await get(`http://${lbHost}:${PORTS.lbStats}/stats;csv`)).text.split('\n').map((line) => line.split(','))
  const dbStates = async (): Promise<Record<DataHost, { status: string; sessions: number }>> => {
    const out: Record<string, { status: string; sessions: number }> = {}
    for (const cols of await lbCsv()) if (cols[0] === 'mysql' && cols[1]?.startsWith('data-') === true) out[cols[1]] = { status: cols[17] ?? '?', sessions: Number(cols[4]) }
    return out as Record<DataHost, { status: string; sessions: number }>
  }
  await waitFor('the balancer to see every Galera node up', async () => {
    const states = await dbStates().catch(() => undefined)
    return states !== undefined && Object.values(states).length === 3 && Object.values(states).every((st) => st.status === 'UP')
  }, 30_000, 200).catch((err: Error) => {
    throw new Error(`${err.message}; haproxy said:\n${lb.lines.slice(-10).join('\n')}`)
  })

  // What every part gets: the data host by name, as on separate machines.
  const env: Record<string, string> = {
    // Every part finds the primary through the Sentinels and counts a write accepted once a replica has it.
    REDIS_SENTINELS: redisSet.sentinelList,
    REDIS_SENTINEL_NAME: SENTINEL_NAME,
    REDIS_SENTINEL_PASSWORD: redisSet.sentinelPassword,
    REDIS_PASSWORD: redisPassword,
    REDIS_WRITE_REPLICAS: '1',
    DATABASE_URL: `mysql://presence:${dbPassword}@lb:${PORTS.mysql}/presence_link`,
    HOST: '0.0.0.0',
    PORT: String(PORTS.api),
    FRONT_WORKERS: '1',
    LOG_LEVEL: 'info',
    DISCORD_TOKEN: 'sandbox-token',
    DISCORD_API: `http://sandbox:${PORTS.sandbox}/api`,
    ROBLOX_USERS_API: `http://sandbox:${PORTS.sandbox}/roblox`,
    SHARD_COUNT: '2',
    TRUST_PROXY: hostOf('lb').address,
    // The spec's limits, except log: a game network's servers post far more than 30 entries a minute between them,
    // and the worker drill needs a steady log load from a dozen addresses.
    RATE_LIMITS: 'bind=10/60,log=3000/60,callbacks=100/10,rpc=100/10',
  }
  // The harness reaches the hosts by address (the root namespace's /etc/hosts does not know their names).
  const harnessEnv = { ...env, DATABASE_URL: `mysql://presence:${dbPassword}@${lbHost}:${PORTS.mysql}/presence_link`, LOG_LEVEL: 'warn' }
  const parsed = parseConfig({ ...harnessEnv })
  if (!parsed.ok) throw new Error(`invalid deployment environment: ${parsed.problems.join('; ')}`)
  const ctx: ProcessContext = createProcessContext('hosts', parsed.config, createLogger('hosts', 'warn'))
  const db = await openDatabase(ctx, 4)
  const redis = await openRedis(ctx, 'request', 'harness')

  cliOnHost('worker', env, ['migrate'])
  const key = cliOnHost('worker', env, ['keys', 'create', '--name', 'hosts'])
  if (!/^\S{32,}$/.test(key)) throw new Error(`keys create printed no key: ${key}`)

  const parts = new Map<PartName, BenchProcess>()
  const partEnv: Record<PartName, Record<string, string>> = {
    sandbox: {},
    'gateway-a': { SHARD_IDS: '0' },
    'gateway-b': { SHARD_IDS: '1' },
    worker: {},
    'front-a': {},
    'front-b': {},
  }
  const start = async (part: PartName, extra: Record<string, string> = {}): Promise<BenchProcess> => {
    await parts.get(part)?.stop(20_000)
    const args = part === 'sandbox' ? ['--host', hostOf('sandbox').address, '--port', String(PORTS.sandbox), '--shards', '2'] : []
    const proc = startProcess({
      name: part,
      script: 'src/cli.js',
      command: inHost(part, process.execPath, [distFile('src/cli.js'), COMMAND[part], ...args]),
      env: { ...env, ...partEnv[part], ...extra },
    })
    parts.set(part, proc)
    const until = Date.now() + 90_000
    for (;;) {
      if (proc.proc.exitCode !== null || proc.proc.signalCode !== null) throw new Error(`${part} exited while starting:\n${proc.lines.slice(-10).join('\n')}`)
      if ((await get(readyUrl(part)).catch(() => ({ status: 0 }))).status === 200) return proc
      if (Date.now() > until) throw new Error(`${part} was not ready within 90 s:\n${proc.lines.slice(-10).join('\n')}`)
      await sleep(200)
    }
  }

  await start('sandbox')
  const control = `http://${hostOf('sandbox').address}:${PORTS.sandbox}/control`
  const state = await controlCall<{
    defaultGuildId: string
    staffRoleId: string
    guilds: Array<{ id: string; shard: number; channels: Array<{ id: string; name: string }> }>
  }>(control, 'GET', 'state')
  const home = state.guilds.find((g) => g.id === state.defaultGuildId)!
  const other = await controlCall<{ id: string; shard: number }>(control, 'POST', 'guilds', { name: 'Second shard', shard: 1 - home.shard })
  const guildOfShard: [string, string] = home.shard === 0 ? [home.id, other.id] : [other.id, home.id]
  const channel = (name: string) => home.channels.find((c) => c.name === name)?.id ?? ''
  const world: SandboxWorld = {
    guildOfShard,
    staffRoleId: state.staffRoleId,
    logChannels: { server: channel('server-log'), ingame: channel('ingame-log'), moderation: channel('moderation-log') },
  }
  Object.assign(env, {
    GUILD_WHITELIST: guildOfShard.join(','),
    STAFF_GUILD_IDS: home.id,
    STAFF_ROLE_ID: state.staffRoleId,
    LOG_DESTINATION_SERVER: world.logChannels.server,
    LOG_DESTINATION_INGAME: world.logChannels.ingame,
    LOG_DESTINATION_MODERATION: world.logChannels.moderation,
  })
  log(`sandbox: guild ${guildOfShard[0]} on shard 0, ${guildOfShard[1]} on shard 1`)

  await Promise.all([start('gateway-a'), start('gateway-b'), start('worker')])
  await Promise.all([start('front-a'), start('front-b')])
  log('parts: gateway-a, gateway-b, worker, front-a, front-b ready')

  const lbStates = async (): Promise<Record<'front-a' | 'front-b', string>> => {
    const out: Record<string, string> = {}
    for (const cols of await lbCsv()) if (cols[0] === 'fronts' && (cols[1] === 'front-a' || cols[1] === 'front-b')) out[cols[1]] = cols[17] ?? '?'
    return out as Record<'front-a' | 'front-b', string>
  }
  await waitFor('the balancer to see both fronts up', async () => {
    const states = await lbStates()
    return states['front-a'] === 'UP' && states['front-b'] === 'UP'
  }, 30_000, 200).catch(async (err: Error) => {
    throw new Error(`${err.message} (${JSON.stringify(await lbStates().catch(() => ({})))}); haproxy said:\n${lb.lines.slice(-10).join('\n')}`)
  })
  log(`balancer: HAProxy on ${lbHost}:${PORTS.api} with both fronts UP (${HAPROXY_CONFIG})`)

  const metricsUrl = (part: PartName) => {
    const host = hostOf(part).address
    if (part === 'worker') return `http://${host}:${PORTS.workerMetrics}/metrics`
    if (part.startsWith('gateway')) return `http://${host}:${PORTS.gatewayMetrics}/metrics`
    return `http://${host}:${PORTS.frontMetrics}/metrics`
  }

  return {
    api: `http://${lbHost}:${PORTS.api}/api/v1`,
    frontApi: (front) => `http://${hostOf(front).address}:${PORTS.api}/api/v1`,
    control,
    bearer: `Bearer ${key}`,
    world,
    parts,
    lb,
    redis,
    db,
    start,
    async stop(part) {
      await parts.get(part)?.stop(20_000)
      parts.delete(part)
    },
    lbStates,
    dbStates,
    galera,
    redisSet,
    async metric(part, name, labels = {}) {
      const text = (await get(metricsUrl(part))).text
      const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`)
      let sum = Number.NaN
      for (const line of text.split('\n')) {
        const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)/.exec(line)
        if (match === null || match[1] !== name) continue
        if (!wanted.every((w) => (match[2] ?? '').includes(w))) continue
        const value = Number(match[3])
        sum = Number.isNaN(sum) ? value : sum + value
      }
      return sum
    },
    async close() {
      await Promise.all([...parts.values()].map((p) => p.stop(20_000)))
      await lb.stop(5000)
      await ctx.shutdown.run('hosts done')
      await Promise.all([redisSet.stop(), galera.stop()])
      await sleep(0)
    },
  }
}

/** Calls the sandbox control API of a deployment. */
export function sandboxCall<T = unknown>(dep: Deployment, method: string, path: string, body?: unknown): Promise<T> {
  return controlCall<T>(dep.control, method, path, body)
}
