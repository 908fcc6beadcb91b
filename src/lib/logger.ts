/** Structured JSON logging (pino); secrets are redacted wherever they could appear. */
import { pino, type Logger } from 'pino'

export type { Logger }

/** Paths that must never reach a log line. */
const REDACT = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'apiKey',
  'api_key',
  'key',
  'token',
  'config.apiKey',
  'config.discordToken',
  'config.pushSecret',
  'pushSecret',
  'openCloudKey',
  'headers["x-api-key"]',
]

/**
 * Creates the process logger; `name` says which process wrote the line. Lines go to stdout, or to stderr with `fd`
 * 2 (the CLI: its stdout is the command's result).
 */
export function createLogger(name: string, level = 'info', fd: 1 | 2 = 1): Logger {
  const options = {
    name,
    level,
    base: { pid: process.pid, process: name },
    redact: { paths: REDACT, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  }
  return fd === 1 ? pino(options) : pino(options, pino.destination({ dest: 2, sync: true }))
}
