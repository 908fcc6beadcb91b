/**
 * Redis on the data hosts of `npm run hosts`: the primary on data-a, a replica on each of data-b and data-c, and a
 * Sentinel on each of the three (quorum 2), so the loss of any one host leaves two Sentinels to agree on a failover
 * and a replica in sync behind the new primary. Every data node refuses writes while no replica is within 10 s of it
 * (min-replicas-to-write 1): a primary cut off from the others stops accepting what a failover would discard. The
 * parts find the primary through the Sentinels (REDIS_SENTINELS) and confirm each accepted write on a replica
 * (REDIS_WRITE_REPLICAS=1). Addresses are used throughout, so the harness in the root namespace can follow too.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { privateRedis, type PrivateServer } from '../harness/private-infra.js'
import { startProcess, type BenchProcess } from '../harness/processes.js'
import { sleep } from '../harness/readiness.js'
import { inHost } from './netns.js'
import { DATA_HOSTS, hostOf, type DataHost } from './topology.js'

/** The name the Sentinels monitor the primary under. */
export const SENTINEL_NAME = 'presence'
/** The Sentinels' port on each data host. */
export const SENTINEL_PORT = 26379
/** A primary silent this long is down for a Sentinel (as in docker-compose.replicated.yml). */
export const DOWN_AFTER_MS = 5000

/** The running Redis set. */
export interface RedisSet {
  password: string
  sentinelPassword: string
  /** REDIS_SENTINELS for the parts: every Sentinel by address, data-a's first. */
  sentinelList: string
  nodes: ReadonlyMap<DataHost, PrivateServer>
  /** Runs a command on one data node directly (redis-cli, with the password); its output, or `ERR ...` on failure. */
  command(host: DataHost, args: readonly string[]): Promise<string>
  /** The primary as the majority Sentinels see it, or null when no two agree. */
  primary(): Promise<DataHost | null>
  /** The node's role: `master`, `replica (link up)` or `replica (link down)`, or `unreachable`. */
  role(host: DataHost): Promise<string>
  stop(): Promise<void>
}

const NODE_ARGS = ['--min-replicas-to-write', '1', '--min-replicas-max-lag', '10']

/** redis-cli against one node, without blocking the harness (the loads run meanwhile); a cut host costs 2 s at most. */
function cli(address: string, port: number, password: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile('redis-cli', ['-h', address, '-p', String(port), '--no-auth-warning', '-a', password, ...args], { encoding: 'utf8', timeout: 2500 }, (err, stdout, stderr) => {
      if (err !== null) resolve(`ERR ${stderr.trim() || err.message}`)
      else resolve(stdout.trim())
    })
  })
}

async function until(what: string, ok: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms / 1000} s`)
    await sleep(200)
  }
}

/** Starts the primary, both replicas and the three Sentinels; resolves once every Sentinel knows the whole set. */
export async function startRedisSet(dir: string, password: string, sentinelPassword: string, log: (m: string) => void): Promise<RedisSet> {
  const primaryAddress = hostOf('data-a').address
  const nodes = new Map<DataHost, PrivateServer>()
  for (const host of DATA_HOSTS) {
    const address = hostOf(host).address
    const replicaOf = host === 'data-a' ? [] : ['--replicaof', primaryAddress, '6379']
    const server = await privateRedis(join(dir, host), {
      host: address,
      port: 6379,
      password,
      launch: (file, args) => inHost(host, file, args),
      serverArgs: ['--masterauth', password, ...NODE_ARGS, ...replicaOf],
    })
    nodes.set(host, server)
    await server.start()
  }
  const command = (host: DataHost, args: readonly string[]) => cli(hostOf(host).address, 6379, password, args)
  for (const host of ['data-b', 'data-c'] as const) {
    await until(`the replica on ${host} in sync`, async () => /master_link_status:up/.test(await command(host, ['info', 'replication'])))
  }
  const sentinels: BenchProcess[] = []
  for (const host of DATA_HOSTS) {
    const address = hostOf(host).address
    mkdirSync(join(dir, `sentinel-${host}`), { recursive: true })
    const file = join(dir, `sentinel-${host}`, 'sentinel.conf')
    // A Sentinel rewrites its own file (it records the primary there): one file each.
    writeFileSync(file, [
      `port ${SENTINEL_PORT}`,
      `bind ${address}`,
      `dir ${join(dir, `sentinel-${host}`)}`,
      `sentinel monitor ${SENTINEL_NAME} ${primaryAddress} 6379 2`,
      `sentinel auth-pass ${SENTINEL_NAME} ${password}`,
      `sentinel down-after-milliseconds ${SENTINEL_NAME} ${DOWN_AFTER_MS}`,
      `sentinel failover-timeout ${SENTINEL_NAME} 60000`,
      `sentinel parallel-syncs ${SENTINEL_NAME} 1`,
      `requirepass ${sentinelPassword}`,
      `sentinel sentinel-pass ${sentinelPassword}`,
      '',
    ].join('\n'))
    sentinels.push(startProcess({ name: `sentinel-${host}`, script: '', command: inHost(host, 'redis-server', [file, '--sentinel']) }))
  }
  const ask = (host: DataHost, args: readonly string[]) => cli(hostOf(host).address, SENTINEL_PORT, sentinelPassword, args)
  for (const host of DATA_HOSTS) {
    await until(`the Sentinel on ${host} knowing both replicas and its two peers`, async () => {
      const replicas = (await ask(host, ['sentinel', 'replicas', SENTINEL_NAME])).split('\n').filter((l) => l === 'name').length
      const peers = (await ask(host, ['sentinel', 'sentinels', SENTINEL_NAME])).split('\n').filter((l) => l === 'name').length
      return replicas === 2 && peers === 2
    })
  }
  log(`redis: primary on data-a, replicas on data-b and data-c, Sentinels on all three (quorum 2)`)
  const hostAt = (address: string): DataHost | null => DATA_HOSTS.find((h) => hostOf(h).address === address) ?? null
  return {
    password,
    sentinelPassword,
    sentinelList: DATA_HOSTS.map((h) => `${hostOf(h).address}:${SENTINEL_PORT}`).join(','),
    nodes,
    command,
    async primary() {
      const seen = (await Promise.all(DATA_HOSTS.map((h) => ask(h, ['sentinel', 'get-master-addr-by-name', SENTINEL_NAME])))).map((a) => a.split('\n')[0] ?? '')
      for (const address of new Set(seen)) if (seen.filter((a) => a === address).length >= 2) return hostAt(address)
      return null
    },
    async role(host) {
      const info = await command(host, ['info', 'replication'])
      if (info.startsWith('ERR')) return 'unreachable'
      const role = /role:(\w+)/.exec(info)?.[1] ?? '?'
      return role === 'slave' ? `replica (link ${/master_link_status:(\w+)/.exec(info)?.[1] ?? '?'})` : role
    },
    async stop() {
      await Promise.all(sentinels.map((s) => s.stop(5000)))
      await Promise.all([...nodes.values()].map((n) => n.kill('SIGTERM')))
    },
  }
}
