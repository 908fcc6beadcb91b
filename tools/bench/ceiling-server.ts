/**
 * Benchmark child process: the ceiling (ceiling-app.ts). It answers callbacks and rpc with the real service's
 * response to the same request, its body and its headers as the front sent them (ETag, Cache-Control, X-Request-Id,
 * and RateLimit-* when compared with a front whose limits are on). Both sides put the same bytes on the wire, so the
 * load generator, which shares this machine's cores, spends the same on either, and the difference to the real front
 * is the service's own work: rate limiting, parsing, the Redis lookup, rendering and making its headers.
 * With a log answer it also takes log events (ceiling-app.ts), for the ingestion's ratio to the ceiling.
 * Protocol (IPC): receives `{port, callbacks, rpc, log?}` (each a `CeilingAnswer`), listens on 127.0.0.1:port, replies `{ready: true}`.
 */
import { listenCeiling } from './ceiling-app.js'
import type { CeilingAnswers } from './measurements/ceiling-comparison.js'

interface Setup extends CeilingAnswers {
  port: number
}

process.once('message', (message: unknown) => {
  const setup = message as Setup
  listenCeiling(setup.port, setup).then(
    () => process.send?.({ ready: true }),
    (err: unknown) => {
      process.send?.({ error: String(err) })
      process.exit(1)
    },
  )
  // hyper-express's own SIGTERM handler only closes the server, and the IPC channel would keep this process alive.
  process.removeAllListeners('SIGTERM')
  process.once('SIGTERM', () => process.exit(0))
  process.once('disconnect', () => process.exit(0))
})
