/**
 * The lifecycle rules every process keeps, whatever it runs: a library's stray promise does not end it, it stops when
 * `serve` (its parent) is gone, and a failed start ends it with one line and the exit status `serve` reads.
 */
import cluster from 'node:cluster'
import { PORT_TAKEN_EXIT, PortTakenError } from './listen-port.js'
import type { Logger } from './logger.js'
import { reportPortTaken, reportStartFailed } from './part-started.js'
import type { ProcessBasics } from './process-basics.js'

/**
 * A library's stray promise (BullMQ's waitUntilFinished polls Redis inside a promise executor) must not take down a
 * process serving other requests: it is logged as the bug it is and the process keeps running.
 */
export function keepRunningOnStrayRejections(log: Logger): void {
  process.on('unhandledRejection', (reason) => {
    log.error({ err: reason instanceof Error ? { message: reason.message, stack: reason.stack } : String(reason) }, 'unhandled rejection')
  })
}

/**
 * A process started by `serve` (which gives it an IPC channel) drains and exits when that channel closes: `serve` has
 * died, and nobody would stop or restart this part any more. node:cluster workers have their own channel to the
 * primary, and cluster already exits them when it closes.
 */
export function stopWhenParentGone({ log, shutdown }: ProcessBasics): void {
  if (!cluster.isPrimary || process.channel === undefined) return
  process.channel.unref()
  process.once('disconnect', () => {
    log.warn('parent process is gone; stopping')
    void shutdown.run('parent gone').then((clean) => process.exit(clean ? 0 : 1))
  })
}

/**
 * Ends a process whose start failed: status 1 with the reason told to `serve`; 98 (PORT_TAKEN_EXIT) with one line and
 * no stack trace when a port it needs is taken. Stopped while starting (serve stops every part when one cannot start),
 * what failed is a consequence, not news: one info line, and the shutdown already under way ends the process.
 */
export async function endFailedStart({ name, log, shutdown }: ProcessBasics, err: unknown): Promise<void> {
  if (shutdown.closing) {
    log.info({ err: err instanceof Error ? err.message : String(err) }, `${name} stopped while starting`)
    return
  }
  if (err instanceof PortTakenError) {
    log.fatal({ ...err.taken }, `${name} cannot start: ${err.message}`)
    await reportPortTaken(err.taken)
    await shutdown.run('port taken')
    process.exit(PORT_TAKEN_EXIT)
  }
  log.fatal({ err }, `${name} failed to start`)
  await reportStartFailed(err instanceof Error ? err.message : String(err))
  await shutdown.run('start failed')
  process.exit(1)
}
