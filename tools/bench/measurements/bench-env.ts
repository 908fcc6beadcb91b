/**
 * What the `npm run bench` measurements share: the scratch world, the running front and worker, and the seeding
 * services; and their one start-up (`startBenchEnv`), used by `npm run bench` and `npm run bench:read-path`.
 */
import { readFile } from 'node:fs/promises'
import { sql } from 'kysely'
import type { CodeService } from '../../../src/codes/code-service.js'
import { QueueName } from '../../../src/queue/names.js'
import { createCodeCache } from '../../../src/redis/code-cache.js'
import { createPresenceStore, type PresenceStore } from '../../../src/redis/presence-store.js'
import { buildApiKeyService, buildCodeService } from '../../../src/runtime/services.js'
import { freePort } from '../../harness/free-port.js'
import { childPids } from '../../harness/proc-sampler.js'
import { startProcess } from '../../harness/processes.js'
import { waitForFront, waitForWorkers } from '../../harness/readiness.js'
import type { Scratch } from '../../harness/scratch.js'

/** The service under test, as the measurements see it. */
export interface BenchEnv {
  scratch: Scratch
  codes: CodeService
  presence: PresenceStore
  /** `Bearer <key>` of an API key made for the run. */
  bearer: string
  /** `http://127.0.0.1:<port>/api/v1` of the ceiling server. */
  ceiling: string
  /** Pids of the processes serving the front's requests (the cluster primary's workers). */
  frontWorkerPids: () => Promise<number[]>
  /** Pid of the ceiling server. */
  ceilingPid: number
  /** Pid of redis-server when it runs on this machine, so its CPU can be read. */
  redisPid: number | undefined
  /** Pid of the worker process (`presence-link worker`). */
  workerPid: number
  /** Pid of the MySQL server when it runs on this machine, so its CPU can be read. */
  mysqlPid: number | undefined
}

/** How a benchmark wants its service. */
export interface BenchEnvOptions {
  /** The queues whose consumers must be running before measuring. */
  queues: readonly QueueName[]
  /** Reads the pids of Redis and of the MySQL server (each when it runs on this machine) so their CPU can be sampled. */
  serverCpu: boolean
}

/** The MySQL server's pid from its pid file, when the database is on this machine and the file is readable. */
async function mysqlPidOf(scratch: Scratch): Promise<number | undefined> {
  if (!/^(127\.0\.0\.1|localhost)$/.test(new URL(scratch.env.DATABASE_URL!).hostname)) return undefined
  try {
    const { rows } = await sql<{ file: string }>`SELECT @@pid_file AS file`.execute(scratch.db)
    const pid = Number((await readFile(rows[0]!.file, 'utf8')).trim())
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

async function redisPidOf(scratch: Scratch): Promise<number | undefined> {
  const pid = Number(/process_id:(\d+)/.exec(await scratch.redis.info('server'))?.[1] ?? Number.NaN)
  // Redis's CPU can only be read when it runs on this machine.
  return /^redis:\/\/(127\.0\.0\.1|localhost)[:/]/.test(scratch.config.redisUrl) && Number.isFinite(pid) ? pid : undefined
}

/**
 * Makes the run's API key, starts the worker and the front from dist/ on `scratch`, waits until both serve, and
 * picks a port for the ceiling server (started later with the bodies the front answers); `ceilingPid` is 0 until then.
 */
export async function startBenchEnv(scratch: Scratch, options: BenchEnvOptions): Promise<{ env: BenchEnv; ceilingPort: number }> {
  const codes = buildCodeService(scratch.db, createCodeCache(scratch.redis, scratch.ctx.keys))
  const presence = createPresenceStore(scratch.redis, scratch.ctx.keys)
  const key = await buildApiKeyService(scratch.db, scratch.redis, scratch.ctx.keys).create('bench')
  if (!key.ok) throw new Error('could not create the bench API key')

  const worker = startProcess({ name: 'worker', script: 'src/cli.js', args: ['worker'], env: scratch.env })
  const front = startProcess({ name: 'front', script: 'src/cli.js', args: ['front'], env: scratch.env })
  await waitForFront(scratch.port)
  await waitForWorkers(scratch.redis, scratch.ctx.keys.bullPrefix, options.queues)

  const ceilingPort = await freePort()
  const env: BenchEnv = {
    scratch,
    codes,
    presence,
    bearer: `Bearer ${key.key}`,
    ceiling: `http://127.0.0.1:${ceilingPort}/api/v1`,
    // The front child is the cluster primary; the requests are served by its workers.
    frontWorkerPids: () => childPids(front.pid),
    ceilingPid: 0,
    redisPid: options.serverCpu ? await redisPidOf(scratch) : undefined,
    workerPid: worker.pid,
    mysqlPid: options.serverCpu ? await mysqlPidOf(scratch) : undefined,
  }
  return { env, ceilingPort }
}

/** The scratch environment of the batch measurements: default limits, the bench's clients through a trusted proxy. */
export function batchEnvOf(frontWorkers: number): Record<string, string> {
  return { FRONT_WORKERS: String(frontWorkers), ROBLOX_USERS_API: 'http://127.0.0.1:9', TRUST_PROXY: '127.0.0.1' }
}

/** The front and worker of the batch measurements on `scratch` (made with batchEnvOf), with every server's pid for its CPU. */
export async function startBatchEnv(scratch: Scratch): Promise<BenchEnv> {
  return (await startBenchEnv(scratch, { queues: [QueueName.Log], serverCpu: true })).env
}
