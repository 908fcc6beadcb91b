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
]

/** Creates the process logger; `name` says which process wrote the line. */
export function createLogger(name: string, level = 'info'): Logger {
  return pino({
    name,
    level,
    base: { pid: process.pid, process: name },
    redact: { paths: REDACT, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  })
}
