/**
 * A throwaway world for one benchmark, drill or test host: a fresh MySQL database `pl_<name>` (migrated) and Redis
 * prefix `<name>`, a free port for the front, the environment that points the service's child processes at them
 * (every metrics and sandbox port 0, so nothing touches 8080, 8090 or 9464-9466), and the removal of both afterwards.
 */
import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { Kysely } from 'kysely'
import { parseConfig, type Config } from '../../src/config.js'
import type { Database } from '../../src/mysql/schema.js'
import { createLogger } from '../../src/lib/logger.js'
import { dropScratch } from './drop-scratch.js'
import { freePort } from './free-port.js'
import { createProcessContext, type ProcessContext } from '../../src/runtime/process-context.js'
import { openDatabase, openRedis } from '../../src/runtime/storage.js'

/** How to make a scratch world. */
export interface ScratchOptions {
  /** Start of the database and prefix name; random hex follows. */
  stem: string
  /** MySQL connections this process keeps to the scratch database. */
  poolSize: number
  /** Service environment on top of the defaults (which are rate limits off, LOG_LEVEL warn, one front worker). */
  env?: Record<string, string>
  /** MySQL server to use instead of the configured one (a private server of the fault drills); its path is replaced. */
  databaseUrl?: string
  /** Redis to use instead of the configured one. */
  redisUrl?: string
  /** False: create the database but leave it empty (the upgrade drill migrates it with the previous release). */
  migrate?: boolean
}

/** An open scratch world. */
export interface Scratch {
  /** The Redis prefix; the database is `pl_<name>`. */
  name: string
  /** The environment for the service's child processes. */
  env: Record<string, string>
  /** The front's port (in `env.PORT`). */
  port: number
  /** `http://127.0.0.1:<port>/api/v1`. */
  api: string
  /** The configuration the child processes will see. */
  config: Config
  ctx: ProcessContext
  db: Kysely<Database>
  redis: Redis
  /** Drops the database and every key under the prefix, then closes this process's connections. */
  remove(): Promise<void>
}

function parsed(env: NodeJS.ProcessEnv): Config {
  const result = parseConfig(env)
  if (!result.ok) throw new Error(`invalid environment: ${result.problems.join('; ')}`)
  return result.config
}

/** Creates and migrates the database, connects to it and to Redis, and builds the child processes' environment. */
export async function createScratch(options: ScratchOptions): Promise<Scratch> {
  const name = `${options.stem}${randomBytes(4).toString('hex')}`
  const base = parsed(process.env)
  const databaseUrl = new URL(options.databaseUrl ?? base.databaseUrl)
  databaseUrl.pathname = `/pl_${name}`
  const port = await freePort()
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl.toString(),
    REDIS_URL: options.redisUrl ?? base.redisUrl,
    REDIS_PREFIX: name,
    HOST: '127.0.0.1',
    PORT: String(port),
    FRONT_WORKERS: '1',
    METRICS_PORT: '0',
    WORKER_METRICS_PORT: '0',
    GATEWAY_METRICS_PORT: '0',
    SANDBOX_PORT: '0',
    RATE_LIMITS: 'off',
    LOG_LEVEL: 'warn',
    ...options.env,
  }
  const config = parsed({ ...process.env, ...env })
  const ctx = createProcessContext(options.stem, config, createLogger(options.stem, 'warn'))
  const db = await openDatabase(ctx, options.poolSize, options.migrate ?? true)
  let redis: Redis
  try {
    redis = await openRedis(ctx, 'request', 'bench')
  } catch (err) {
    await ctx.shutdown.run('scratch failed')
    throw err
  }
  return {
    name,
    env,
    port,
    api: `http://127.0.0.1:${port}/api/v1`,
    config,
    ctx,
    db,
    redis,
    async remove() {
      try {
        await dropScratch(db, redis, name)
      } finally {
        await ctx.shutdown.run('bench done')
      }
    },
  }
}
