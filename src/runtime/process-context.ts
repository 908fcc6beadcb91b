/** What every process starts with: its config, logger, shutdown registry, Redis key set and Redis outage log. */
import { loadConfig, type Config } from '../config.js'
import { createLogger, type Logger } from '../lib/logger.js'
import type { ProcessBasics } from '../lib/process-basics.js'
import { createShutdown, exitOnSignals } from '../lib/shutdown.js'
import { createRedisKeys, type RedisKeys } from '../redis/keys.js'
import { endFailedStart, keepRunningOnStrayRejections, stopWhenParentGone } from '../lib/process-lifecycle.js'
import { createRedisWatch, type RedisWatch } from '../redis/redis-watch.js'

/** A running process's shared pieces. */
export interface ProcessContext extends ProcessBasics {
  config: Config
  keys: RedisKeys
  /** Up/down state of the process's Redis clients: one log line per change. */
  redisWatch: RedisWatch
}

/** Builds a context from a given config (tests) without touching signals. */
export function createProcessContext(name: string, config: Config, log?: Logger): ProcessContext {
  const logger = log ?? createLogger(name, config.logLevel)
  return {
    name,
    config,
    log: logger,
    shutdown: createShutdown(logger),
    keys: createRedisKeys(config.redisPrefix),
    redisWatch: createRedisWatch(logger),
  }
}

/**
 * Runs a process: loads config from the environment, starts it, exits on signals or on a failed start (status 1 with
 * the reason told to `serve`; 98, PORT_TAKEN_EXIT, with one line and no stack trace when a port it needs is taken).
 * A process started by `serve` (which gives it an IPC channel) drains and exits when that channel closes: `serve` has
 * died, and nobody would stop or restart this part any more.
 */
export async function runProcess(name: string, start: (ctx: ProcessContext) => Promise<void>): Promise<void> {
  const ctx = createProcessContext(name, loadConfig())
  exitOnSignals(ctx.shutdown)
  keepRunningOnStrayRejections(ctx.log)
  stopWhenParentGone(ctx)
  try {
    await start(ctx)
  } catch (err) {
    await endFailedStart(ctx, err)
  }
}
