/**
 * What every running process hands the parts it starts, whatever it is: its name, its logger and its shutdown
 * registry. The whole context (config, Redis keys, connection watch) is src/runtime/process-context.ts, which builds it.
 */
import type { Logger } from './logger.js'
import type { Shutdown } from './shutdown.js'

/** A process's name, logger and shutdown registry. */
export interface ProcessBasics {
  readonly name: string
  readonly log: Logger
  readonly shutdown: Shutdown
}
