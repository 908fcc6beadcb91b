/**
 * One shutdown registry per process: adapters register their close in start order, shutdown runs them in
 * reverse (servers stop accepting and drain before the clients they use are closed), all under one deadline.
 */
import type { Logger } from './logger.js'

type Closer = { name: string; close: () => Promise<void> | void }

/** A process's shutdown registry. */
export interface Shutdown {
  /** Registers a close; closes run in reverse registration order. */
  register(name: string, close: () => Promise<void> | void): void
  /** Runs every close once, within the deadline; resolves true when all finished cleanly. */
  run(reason: string): Promise<boolean>
  /** True once shutdown has begun. */
  readonly closing: boolean
}

/** Creates a registry; `deadlineMs` bounds the whole shutdown. */
export function createShutdown(log: Logger, deadlineMs = 10_000): Shutdown {
  const closers: Closer[] = []
  let running: Promise<boolean> | undefined
  return {
    register(name, close) {
      closers.push({ name, close })
    },
    get closing() {
      return running !== undefined
    },
    run(reason) {
      running ??= (async () => {
        log.info({ reason }, 'shutting down')
        let clean = true
        let current = ''
        const all = (async () => {
          for (const c of [...closers].reverse()) {
            current = c.name
            try {
              await c.close()
            } catch (err) {
              clean = false
              log.error({ err, closer: c.name }, 'close failed')
            }
          }
        })()
        let timer: NodeJS.Timeout | undefined
        const deadline = new Promise<'deadline'>((resolve) => {
          timer = setTimeout(() => resolve('deadline'), deadlineMs)
          timer.unref()
        })
        const outcome = await Promise.race([all.then(() => 'done' as const), deadline])
        clearTimeout(timer)
        if (outcome === 'deadline') {
          log.error({ deadlineMs, closer: current }, 'shutdown deadline passed')
          return false
        }
        return clean
      })()
      return running
    },
  }
}

/** Wires SIGINT/SIGTERM to the registry and exits when it has run. */
export function exitOnSignals(shutdown: Shutdown): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    // hyper-express adds its own handlers that only close the HTTP server; ours closes everything and exits.
    process.removeAllListeners(signal)
    process.once(signal, () => {
      void shutdown.run(signal).then((clean) => process.exit(clean ? 0 : 1))
    })
  }
}
