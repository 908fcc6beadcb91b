/**
 * Benchmark child process: the ceiling. A plain hyper-express server that answers callbacks and rpc with a
 * precomputed answer: the real service's response to the same request, its body as UTF-8 bytes and its headers as
 * the front sent them (ETag, Cache-Control, X-Request-Id, and RateLimit-* when compared with a front whose limits are
 * on). Both sides put the same bytes on the wire, so the load generator, which shares this machine's cores, spends
 * the same on either, and the difference to the real front is the service's own work: rate limiting, parsing, the
 * Redis lookup, rendering and making its headers.
 * Protocol (IPC): receives `{port, callbacks, rpc}` (each a `CeilingAnswer`), listens on 127.0.0.1:port, replies `{ready: true}`.
 */
import HyperExpress from 'hyper-express'
import type { CeilingAnswer } from './measurements/ceiling-comparison.js'

interface Setup {
  port: number
  callbacks: CeilingAnswer
  rpc: CeilingAnswer
}

const TEXT = 'text/plain; charset=utf-8'

/** Headers the server writes itself (or hyper-express does), which the ceiling must not copy. */
const OWN_HEADERS = new Set(['content-length', 'content-type', 'date', 'connection', 'keep-alive', 'transfer-encoding', 'uwebsockets'])

/** The copied headers of an answer, as name and value pairs. */
function copiedHeaders(answer: CeilingAnswer): Array<[string, string]> {
  return Object.entries(answer.headers).filter(([name]) => !OWN_HEADERS.has(name.toLowerCase()))
}

process.once('message', (message: unknown) => {
  const setup = message as Setup
  // Encoded once, as the front keeps its remembered answers: the bytes go out without a conversion per request.
  const callbacks = Buffer.from(setup.callbacks.body, 'utf8')
  const rpc = Buffer.from(setup.rpc.body, 'utf8')
  const callbacksHeaders = copiedHeaders(setup.callbacks)
  const rpcHeaders = copiedHeaders(setup.rpc)
  const app = new HyperExpress.Server()
  app.get('/api/v1/callbacks/:codes', (_req, res) => {
    res.header('content-type', TEXT)
    for (const [name, value] of callbacksHeaders) res.header(name, value)
    res.send(callbacks)
  })
  app.get('/api/v1/rpc/:codes', (_req, res) => {
    res.header('content-type', TEXT)
    for (const [name, value] of rpcHeaders) res.header(name, value)
    res.send(rpc)
  })
  app.listen(setup.port, '127.0.0.1').then(
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
