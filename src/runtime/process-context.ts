/** What every process starts with: its config, logger, shutdown registry and Redis key set. */
import { loadConfig, type Config } from '../config.js'
import { createLogger, type Logger } from '../lib/logger.js'
import { createShutdown, exitOnSignals, type Shutdown } from '../lib/shutdown.js'
import { createRedisKeys, type RedisKeys } from '../redis/keys.js'

/** A running process's shared pieces. */
export interface ProcessContext {
  name: string
  config: Config
  log: Logger
  shutdown: Shutdown
  keys: RedisKeys
}

/** Builds a context from a given config (tests) without touching signals. */
export function createProcessContext(name: string, config: Config, log?: Logger): ProcessContext {
  const logger = log ?? createLogger(name, config.logLevel)
  return { name, config, log: logger, shutdown: createShutdown(logger), keys: createRedisKeys(config.redisPrefix) }
}

/** Runs a process: loads config from the environment, starts it, exits on signals or on a failed start. */
export async function runProcess(name: string, start: (ctx: ProcessContext) => Promise<void>): Promise<void> {
  const ctx = createProcessContext(name, loadConfig())
  exitOnSignals(ctx.shutdown)
  try {
    await start(ctx)
  } catch (err) {
    ctx.log.fatal({ err }, `${name} failed to start`)
    await ctx.shutdown.run('start failed')
    process.exit(1)
  }
}
