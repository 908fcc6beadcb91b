/**
 * Hostile clients against the real front (src/front.ts, two cluster workers), in bounded storms of a few seconds
 * each, over raw sockets: uploads hung up at every kind of byte offset on both write routes with right and wrong keys,
 * senders that stop half-way, request heads torn at every byte, pipelined garbage, and streams dropped mid-handshake.
 * Throughout, /readyz and callbacks are polled: every answer must be 200 with the right body, and no front worker may
 * die (hyper-express 6.17 called into an ended or aborted uWS response from its body parser: an uncaught exception
 * that killed the worker; patches/hyper-express+6.17.4.patch).
 */
import { randomBytes } from 'node:crypto'
import { connect, type Socket } from 'node:net'
import t from 'tap'
import { descendants, entry, startPart, type Part } from '../helpers/parts.js'
import { freePort } from '../helpers/scratch.js'
import { eventually, startStack } from '../helpers/stack.js'

// Slow on a busy machine (processes that load the TypeScript sources, or many runs): more than tap's 120 s per file.
t.setTimeout(300_000)

const CHAT_USER = '500000000000000077'

/** How long a body may take to arrive before the front answers 400 (short, so stalled senders are answered here). */
const BODY_TIMEOUT_MS = 300

/** Parallel sockets per storm. */
const LANES = 24

/** Runs `one` in `lanes` parallel lanes until `ms` have passed; resolves with the number of runs. */
async function storm(ms: number, lanes: number, one: (i: number) => Promise<void>): Promise<number> {
  const until = Date.now() + ms
  let runs = 0
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (Date.now() < until) await one(runs++)
    }),
  )
  return runs
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A raw socket whose errors (resets, refusals) are expected; `closed` settles when it is gone. */
function rawSocket(port: number): { socket: Socket; connected: Promise<boolean>; closed: Promise<void> } {
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  socket.on('data', () => {})
  const connected = new Promise<boolean>((resolve) => {
    socket.once('connect', () => resolve(true))
    socket.once('close', () => resolve(false))
  })
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  return { socket, connected, closed }
}

/** Writes `bytes` in pieces of at most `piece` bytes, yielding to the event loop between them (as a network would). */
async function writeInPieces(socket: Socket, bytes: Buffer, piece: number): Promise<void> {
  for (let offset = 0; offset < bytes.length && !socket.destroyed; offset += piece) {
    socket.write(bytes.subarray(offset, offset + piece))
    await new Promise((r) => setImmediate(r))
  }
}

/** A whole POST request: head and a JSON body of `size` bytes (or of what `body` gives). */
function postRequest(path: string, auth: string, size: number): Buffer {
  const padding = Math.max(0, size - 40)
  const body = Buffer.from(`{"event_type":"storm","description":"${'x'.repeat(padding)}"}`)
  const head = `POST ${path} HTTP/1.1\r\nHost: front\r\nAuthorization: Bearer ${auth}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
  return Buffer.concat([Buffer.from(head), body])
}

t.test('storms of hostile clients against the front with two workers', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const { code } = await stack.codes.issue(CHAT_USER)
  await stack.codes.bind(code.code, { platformUserId: '156', platformUsername: 'Builderman' }, { source: 'test' })
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const front: Part = startPart(t, entry('src/front.ts'), {
    DATABASE_URL: stack.config.databaseUrl,
    REDIS_URL: stack.config.redisUrl,
    REDIS_PREFIX: stack.config.redisPrefix,
    HOST: '127.0.0.1',
    PORT: String(port),
    METRICS_PORT: '0',
    FRONT_WORKERS: '2',
    RATE_LIMITS: 'off',
    UNKNOWN_CODE_BUDGET: '0',
    BIND_TIMEOUT_MS: '500',
    BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
    LOG_LEVEL: 'warn',
  })
  // Logs at warn (a storm's thousands of 4xx would be info lines): the front is up once both workers run and answer.
  await eventually(async () => {
    if (descendants(front.child.pid!).length < 2) return undefined
    const answers = await Promise.all(Array.from({ length: 8 }, () => fetch(`${origin}/readyz`).then((r) => r.status, () => 0)))
    return answers.every((s) => s === 200) ? true : undefined
  }, 60_000, 'both front workers to answer /readyz')
  const workersAtStart = descendants(front.child.pid!).sort()
  t.equal(workersAtStart.length, 2, 'two front workers run')

  const block = `{${code.code};\nBuilderman;\nNo activity detected;\n}\n`
  const failures: string[] = []
  let polls = 0
  let polling = true
  // What a game server and a load balancer see while the storms run: every poll must answer 200 with the right body.
  const poller = (async () => {
    while (polling) {
      for (const [url, expected] of [
        [`${origin}/readyz`, undefined],
        [`${origin}/api/v1/callbacks/${code.code}`, block],
      ] as const) {
        try {
          const res = await fetch(url, { signal: AbortSignal.timeout(5000) })
          const text = await res.text()
          if (res.status !== 200 || (expected !== undefined && text !== expected)) failures.push(`${url}: ${res.status} ${text.slice(0, 80)}`)
        } catch (err) {
          failures.push(`${url}: ${(err as Error).message} ${String((err as { cause?: unknown }).cause ?? '')}`)
        }
        polls++
      }
      await pause(50)
    }
  })()

  const routes = ['/api/v1/bind', '/api/v1/log/server', '/api/v1/log/moderation']
  const keys = [stack.apiKey, 'wrong-key-0123456789abcdef0123456789abcdef']

  t.test('uploads hung up at many byte offsets, on both write routes, with right and wrong keys', async (t) => {
    const runs = await storm(4000, LANES, async (i) => {
      const request = postRequest(routes[i % routes.length]!, keys[(i >> 2) % keys.length]!, 1000 + ((i * 7919) % 59_000))
      const headEnd = request.indexOf('\r\n\r\n') + 4
      // Every kind of cut: inside the body, right after the head, and after the last byte (the original crash:
      // an early 401 or 413 sent while chunks were still arriving, then the socket destroyed).
      const cuts = [request.length, headEnd, headEnd + ((i * 104_729) % (request.length - headEnd + 1))]
      const cut = cuts[i % cuts.length]!
      const { socket, connected, closed } = rawSocket(port)
      if (!(await connected)) return
      await writeInPieces(socket, request.subarray(0, cut), 1 + ((i * 31) % 16_384))
      await pause(i % 6)
      socket.destroy()
      await closed
    })
    t.ok(runs > 200, `${runs} hung-up uploads`)
  })

  t.test('senders that stop half-way, and some that hang up while stalled', async (t) => {
    const runs = await storm(3000, LANES, async (i) => {
      const request = postRequest(routes[i % routes.length]!, keys[i % keys.length]!, 2000 + ((i * 613) % 30_000))
      const { socket, connected, closed } = rawSocket(port)
      if (!(await connected)) return
      await writeInPieces(socket, request.subarray(0, Math.floor(request.length / 2)), 512)
      if (i % 3 === 0) {
        await pause(i % 50)
        socket.destroy()
      } else {
        // The front answers a stalled body after BODY_TIMEOUT_MS and closes; give up a little after that.
        await Promise.race([closed, pause(BODY_TIMEOUT_MS * 3)])
        socket.destroy()
      }
      await closed
    })
    t.ok(runs > 50, `${runs} stalled senders`)
  })

  t.test('request heads torn at every byte', async (t) => {
    const heads = [
      postRequest('/api/v1/log/ingame', stack.apiKey, 200),
      Buffer.from(`GET /api/v1/callbacks/${code.code}&ZZZZ HTTP/1.1\r\nHost: front\r\nIf-None-Match: "x"\r\nX-Forwarded-For: 10.0.0.1\r\n\r\n`),
      Buffer.from(`GET /api/v1/stream/${code.code} HTTP/1.1\r\nHost: front\r\nAccept: text/event-stream\r\n\r\n`),
      Buffer.from(
        'GET /api/v1/ws HTTP/1.1\r\nHost: front\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      ),
    ]
    const cuts = heads.flatMap((head, h) => Array.from({ length: head.length }, (_, cut) => ({ h, cut })))
    let next = 0
    await Promise.all(
      Array.from({ length: LANES }, async () => {
        for (let n = next++; n < cuts.length; n = next++) {
          const { h, cut } = cuts[n]!
          const { socket, connected, closed } = rawSocket(port)
          if (!(await connected)) continue
          socket.write(heads[h]!.subarray(0, cut))
          await pause(n % 3)
          socket.destroy()
          await closed
        }
      }),
    )
    t.ok(cuts.length > 500, `${cuts.length} torn heads`)
  })

  t.test('pipelined garbage after valid requests', async (t) => {
    const valid = Buffer.from(`GET /api/v1/callbacks/${code.code} HTTP/1.1\r\nHost: front\r\n\r\n`)
    const runs = await storm(3000, LANES, async (i) => {
      const parts: Buffer[] = [valid, valid]
      if (i % 4 === 0) parts.push(postRequest('/api/v1/log/server', keys[i % keys.length]!, 300 + (i % 5000)))
      parts.push(randomBytes(1 + (i % 700)))
      if (i % 5 === 0) parts.push(Buffer.from('\r\n\r\nPOST /api/v1/bind HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n{'))
      if (i % 7 === 0) parts.push(Buffer.from('GET /api/v1/rpc/' + 'A'.repeat(70_000) + ' HTTP/1.1\r\n\r\n'))
      const { socket, connected, closed } = rawSocket(port)
      if (!(await connected)) return
      socket.write(Buffer.concat(parts))
      await Promise.race([closed, pause(i % 40)])
      socket.destroy()
      await closed
    })
    t.ok(runs > 200, `${runs} pipelined garbage runs`)
  })

  t.test('streams dropped mid-handshake and right after opening', async (t) => {
    const sse = Buffer.from(`GET /api/v1/stream/${code.code}&ZZZZ HTTP/1.1\r\nHost: front\r\nAccept: text/event-stream\r\n\r\n`)
    const ws = Buffer.from(
      'GET /api/v1/ws HTTP/1.1\r\nHost: front\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    )
    // A masked WebSocket text frame that subscribes to the code, then garbage frames.
    const frame = (payload: Buffer): Buffer => {
      const mask = randomBytes(4)
      const masked = Buffer.from(payload.map((b, j) => b ^ mask[j % 4]!))
      return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked])
    }
    const runs = await storm(3000, LANES, async (i) => {
      const { socket, connected, closed } = rawSocket(port)
      if (!(await connected)) return
      if (i % 2 === 0) socket.write(sse)
      else {
        socket.write(ws)
        await pause(i % 5)
        socket.write(frame(Buffer.from(JSON.stringify({ type: 'subscribe', codes: [code.code] }))))
        if (i % 3 === 0) socket.write(randomBytes(1 + (i % 200)))
      }
      await pause(i % 30)
      socket.destroy()
      await closed
    })
    t.ok(runs > 200, `${runs} dropped streams`)
  })

  t.test('afterwards: no worker died, every poll answered 200, and the front still serves writes', async (t) => {
    polling = false
    await poller
    t.same(
      front.entries().filter((e) => e.msg === 'front worker died; restarting'),
      [],
      'no front worker died',
    )
    t.same(descendants(front.child.pid!).sort(), workersAtStart, 'the same two workers run')
    t.ok(polls > 20, `${polls} polls of /readyz and callbacks during the storms`)
    t.same(failures, [], 'every poll answered 200 with the right body')
    const res = await fetch(`${origin}/api/v1/log/server`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ event_type: 'after_storm', description: 'still here' }),
    })
    t.same({ status: res.status, body: await res.json() }, { status: 200, body: { status: 'logged', category: 'server' } })
  })
})
