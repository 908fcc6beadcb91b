/**
 * A front told to stop (SIGTERM to the real front entry, cluster primary and worker): it stops listening, a request
 * already in a handler (a bind waiting for its worker) is answered as usual and its effect stored, a request that
 * arrives later on a kept-alive connection is answered 503 with Connection: close, and no error is logged.
 */
import { connect, type Socket } from 'node:net'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { QueueName } from '../../src/queue/names.js'
import { createQueue } from '../../src/queue/queues.js'
import { createSandbox } from '../../src/sandbox/create-sandbox.js'
import { startPart } from '../helpers/parts.js'
import { freePort } from '../helpers/scratch.js'
import { eventually, startStack } from '../helpers/stack.js'

const FRONT_ENTRY = fileURLToPath(new URL('../../src/front.ts', import.meta.url))

/** One HTTP/1.1 exchange on a kept-alive socket: the raw reply (head and body) once its declared body has arrived. */
function exchange(socket: Socket, request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    let raw = ''
    const onData = (chunk: Buffer) => {
      raw += chunk.toString()
      const end = raw.indexOf('\r\n\r\n')
      if (end < 0) return
      const [statusLine, ...lines] = raw.slice(0, end).split('\r\n')
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
      const body = raw.slice(end + 4)
      if (Buffer.byteLength(body) < Number(headers['content-length'] ?? 0)) return
      socket.off('data', onData)
      socket.off('error', reject)
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body })
    }
    socket.on('data', onData)
    socket.once('error', reject)
    socket.write(request)
  })
}

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.off('error', reject)
      resolve(socket)
    })
    socket.once('error', reject)
  })
}

/** True once a new connection to `port` is refused (the listen socket is closed). */
async function refused(port: number): Promise<true | undefined> {
  try {
    ;(await openSocket(port)).destroy()
    return undefined
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ECONNREFUSED' ? true : undefined
  }
}

const post = (path: string, auth: string, body: string) =>
  `POST ${path} HTTP/1.1\r\nHost: front\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`

t.test('SIGTERM: the bind in flight is answered and stored, a later keep-alive request gets 503 and Connection: close, nothing logged as an error', async (t) => {
  const sandbox = await createSandbox({ port: 0 })
  t.teardown(() => sandbox.close())
  const stack = await startStack(t, { front: false, env: { RATE_LIMITS: 'off', ROBLOX_USERS_API: sandbox.robloxBase } })
  const auth = `Bearer ${stack.apiKey}`
  const port = await freePort()
  const front = startPart(t, FRONT_ENTRY, {
    DATABASE_URL: stack.config.databaseUrl,
    REDIS_PREFIX: stack.config.redisPrefix,
    ROBLOX_USERS_API: sandbox.robloxBase,
    PORT: String(port),
    HOST: '127.0.0.1',
    METRICS_PORT: '0',
    FRONT_WORKERS: '1',
    RATE_LIMITS: 'off',
    BIND_TIMEOUT_MS: '60000',
    LOG_LEVEL: 'info',
  })
  await front.waitFor((e) => e.msg === 'front listening', 150_000, 'front listening')

  // Two kept-alive connections, each served once before the stop.
  const inFlight = await openSocket(port)
  const later = await openSocket(port)
  t.teardown(() => {
    inFlight.destroy()
    later.destroy()
  })
  t.equal((await exchange(later, 'GET /healthz HTTP/1.1\r\nHost: front\r\n\r\n')).status, 200)
  t.equal((await exchange(inFlight, 'GET /healthz HTTP/1.1\r\nHost: front\r\n\r\n')).status, 200)

  // The bind waits in the front for its worker: its job stays queued while the bind queue is paused.
  const bindQueue = createQueue(QueueName.Bind, stack.redis, stack.ctx.keys.bullPrefix)
  t.teardown(() => bindQueue.close())
  await bindQueue.pause()
  const code = (await stack.codes.issue('300000000000000001')).code.code
  const bound = exchange(inFlight, post('/api/v1/bind', auth, JSON.stringify({ code, platform_username: 'Player_One', platform_user_id: 1001 })))
  await eventually(async () => {
    const counts = await bindQueue.getJobCounts('wait', 'waiting', 'prioritized')
    return Object.values(counts).some((n) => n > 0) ? true : undefined
  }, 60_000, 'the bind job queued')

  const exited = new Promise<number | string | null>((resolve) => front.child.once('exit', (c, s) => resolve(c ?? s)))
  front.child.kill('SIGTERM')
  await eventually(() => refused(port), 30_000, 'the front stops listening')

  const turnedAway = await exchange(later, post('/api/v1/log/server', auth, '{"event_type":"after_stop","description":"sent after the stop"}'))
  t.equal(turnedAway.status, 503, 'a request after the stop is refused')
  t.equal(turnedAway.headers.connection, 'close', 'and the connection closed, so the client reconnects elsewhere')
  t.equal(turnedAway.headers['retry-after'], '1')
  t.same(JSON.parse(turnedAway.body), { detail: { status: 'error', code: 'service_unavailable', message: 'this server is shutting down; retry shortly' } })

  await bindQueue.resume()
  const reply = await bound
  t.equal(reply.status, 200, 'the bind in flight at the stop is answered')
  t.same(JSON.parse(reply.body), { status: 'bound', platform_username: 'Player_One' })
  t.equal((await stack.codes.show(code))?.platformUserId, '1001', 'and stored')
  t.equal(await exited, 0, 'the front exits cleanly')
  const errors = front.entries().filter((e) => Number(e.level) >= 50)
  t.same(errors, [], 'no error lines')
  const stored = await stack.db.selectFrom('log_entries').select('id').where('event_type', '=', 'after_stop').execute()
  t.same(stored, [], 'the refused event was not stored')
})
