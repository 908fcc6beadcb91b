/**
 * A private replicated Redis for tests of issue 22: a primary and a replica (`--replicaof`) on free ports, and
 * optionally three `redis-server --sentinel` processes watching them under one master name, from generated config
 * files in a temporary directory. Each node can be frozen (SIGSTOP), thawed (SIGCONT) or killed (SIGKILL); every
 * process is killed at teardown. The shared Redis is never touched.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { freePort } from './scratch.js'
import type { Teardown } from './stack.js'

/** One redis-server process. */
export interface RedisNode {
  port: number
  url: string
  /** SIGSTOP: it keeps its connections open and answers nothing (a replica stops acknowledging offsets). */
  freeze(): void
  /** SIGCONT after freeze(). */
  thaw(): void
  /** SIGKILL; resolves once it has exited. */
  kill(): Promise<void>
}

/** A primary, a replica, and (when asked) three Sentinels. */
export interface ReplicatedRedis {
  primary: RedisNode
  replica: RedisNode
  sentinels: RedisNode[]
  /** The master name the Sentinels monitor. */
  name: string
  /** REDIS_SENTINELS for the service: `127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3`. */
  sentinelList: string
  /** Asks a Sentinel which port the primary is on now. */
  primaryPort(): Promise<number | null>
}

function startNode(t: Teardown, port: number, args: string[]): RedisNode {
  const child: ChildProcess = spawn('/usr/bin/redis-server', args, { stdio: 'ignore' })
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT')
      child.kill('SIGKILL')
    }
  })
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    freeze: () => void child.kill('SIGSTOP'),
    thaw: () => void child.kill('SIGCONT'),
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGKILL')
      await exited
    },
  }
}

/** Runs `fn` on a short-lived connection to `port`. */
export async function onNode<T>(port: number, fn: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
  redis.on('error', () => undefined)
  try {
    await redis.connect()
    return await fn(redis)
  } finally {
    redis.disconnect()
  }
}

// 60 s: a replica's first sync forks the primary; on a slow, busy machine it took over 20 s in a CI run.
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    if (await check().catch(() => false)) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`)
}

// No 5 s wait before a diskless sync (Redis's default), so a replica is in sync as soon as the primary can send it.
const NODE_ARGS = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--repl-diskless-sync-delay', '0']

/**
 * Starts the primary (with `primaryArgs` added to its command line) and its replica (and three Sentinels with
 * `sentinels: true`), and waits until the replica is in sync and every Sentinel knows the replica and the other two
 * Sentinels (so a failover can start at once).
 */
export async function replicatedRedis(t: Teardown, opts: { sentinels?: boolean; primaryArgs?: readonly string[] } = {}): Promise<ReplicatedRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'pl-sentinel-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const [primaryPort, replicaPort] = [await freePort(), await freePort()]
  // A replica writes the primary's snapshot to its working directory: keep it in the test's own.
  const primary = startNode(t, primaryPort, ['--port', String(primaryPort), ...NODE_ARGS, '--dir', dir, ...(opts.primaryArgs ?? [])])
  const replica = startNode(t, replicaPort, ['--port', String(replicaPort), ...NODE_ARGS, '--dir', dir, '--dbfilename', 'replica.rdb', '--replicaof', '127.0.0.1', String(primaryPort)])
  await until('the replica in sync', () => onNode(replicaPort, async (r) => /master_link_status:up/.test(await r.info('replication'))))
  const name = 'pl-test'
  const sentinels: RedisNode[] = []
  if (opts.sentinels === true) {
    for (let i = 0; i < 3; i++) {
      const port = await freePort()
      const file = join(dir, `sentinel-${i}.conf`)
      // Quick detection for tests: down after 1 s; a failover that stalls is retried after 4 s.
      writeFileSync(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${name} 1000`,
          `sentinel failover-timeout ${name} 4000`,
          `sentinel parallel-syncs ${name} 1`,
          '',
        ].join('\n'),
      )
      sentinels.push(startNode(t, port, [file, '--sentinel']))
    }
    for (const s of sentinels) {
      await until(`sentinel ${s.port} knows the replica and its peers`, () =>
        onNode(s.port, async (r) => {
          const replicas = (await r.call('SENTINEL', 'REPLICAS', name)) as unknown[]
          const peers = (await r.call('SENTINEL', 'SENTINELS', name)) as unknown[]
          return replicas.length === 1 && peers.length === 2
        }),
      )
    }
  }
  return {
    primary,
    replica,
    sentinels,
    name,
    sentinelList: sentinels.map((s) => `127.0.0.1:${s.port}`).join(','),
    async primaryPort() {
      for (const s of sentinels) {
        const answer = await onNode(s.port, (r) => r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name) as Promise<string[] | null>).catch(() => null)
        if (Array.isArray(answer)) return Number(answer[1])
      }
      return null
    },
  }
}
