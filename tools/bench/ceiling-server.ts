/**
 * Benchmark child process: the ceiling. A plain hyper-express server that answers callbacks and rpc with a
 * precomputed body (the real service's response to the same request, as UTF-8 bytes), so the difference to the real front is
 * the service's own work: rate limiting, parsing, the Redis lookup and rendering.
 * Protocol (IPC): receives `{port, callbacks, rpc}`, listens on 127.0.0.1:port, replies `{ready: true}`.
 */
import HyperExpress from 'hyper-express'

interface Setup {
  port: number
  callbacks: string
  rpc: string
}

const TEXT = 'text/plain; charset=utf-8'

process.once('message', (message: unknown) => {
  const setup = message as Setup
  // Encoded once, as the front keeps its remembered answers: the bytes go out without a conversion per request.
  const callbacks = Buffer.from(setup.callbacks, 'utf8')
  const rpc = Buffer.from(setup.rpc, 'utf8')
  const app = new HyperExpress.Server()
  app.get('/api/v1/callbacks/:codes', (_req, res) => {
    res.header('content-type', TEXT).send(callbacks)
  })
  app.get('/api/v1/rpc/:codes', (_req, res) => {
    res.header('content-type', TEXT).send(rpc)
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
