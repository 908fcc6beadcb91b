/** What every process starts with: its config, logger, shutdown registry, Redis key set and Redis outage log. */
import cluster from 'node:cluster'
import { loadConfig, type Config } from '../config.js'
import { createLogger, type Logger } from '../lib/logger.js'
import type { ProcessBasics } from '../lib/process-basics.js'
import { createShutdown, exitOnSignals } from '../lib/shutdown.js'
import { createRedisKeys, type RedisKeys } from '../redis/keys.js'
import { PORT_TAKEN_EXIT, PortTakenError } from '../lib/listen-port.js'
import { reportPortTaken, reportStartFailed } from '../lib/part-started.js'
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
  // A library's stray promise (BullMQ's waitUntilFinished polls Redis inside a promise executor) must not take down
  // a process serving other requests: log it as the bug it is and keep running.
  process.on('unhandledRejection', (reason) => {
    ctx.log.error({ err: reason instanceof Error ? { message: reason.message, stack: reason.stack } : String(reason) }, 'unhandled rejection')
  })
  // node:cluster workers have their own channel to the primary, and cluster already exits them when it closes.
  if (cluster.isPrimary && process.channel !== undefined) {
    process.channel.unref()
    process.once('disconnect', () => {
      ctx.log.warn('parent process is gone; stopping')
      void ctx.shutdown.run('parent gone').then((clean) => process.exit(clean ? 0 : 1))
    })
  }
  try {
    await start(ctx)
  } catch (err) {
    // Stopped while starting (serve stops every part when one cannot start): what failed is a consequence, not news.
    if (ctx.shutdown.closing) {
      ctx.log.info({ err: err instanceof Error ? err.message : String(err) }, `${name} stopped while starting`)
      return
    }
    if (err instanceof PortTakenError) {
      ctx.log.fatal({ ...err.taken }, `${name} cannot start: ${err.message}`)
      await reportPortTaken(err.taken)
      await ctx.shutdown.run('port taken')
      process.exit(PORT_TAKEN_EXIT)
    }
    ctx.log.fatal({ err }, `${name} failed to start`)
    await reportStartFailed(err instanceof Error ? err.message : String(err))
    await ctx.shutdown.run('start failed')
    process.exit(1)
  }
}
