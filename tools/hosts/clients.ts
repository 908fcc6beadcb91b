/**
 * The simulated game servers of `npm run hosts`: HTTP requests sent from a chosen source address on the bridge (one
 * address per game server, so the service sees distinct clients), and an SSE stream follower that reconnects the way
 * a game server's watch does when its stream ends or fails.
 */
import { Agent, request } from 'node:http'
import { connect } from 'node:net'

/** A response as a client sees it (status 0 with `error` when the request failed without one). */
export interface Reply {
  status: number
  text: string
  headers: Record<string, string | string[] | undefined>
  error?: string
}

const agents = new Map<string, Agent>()

function agentFor(from: string): Agent {
  let agent = agents.get(from)
  if (agent === undefined) {
    agent = new Agent({ keepAlive: true, maxSockets: 64, localAddress: from })
    agents.set(from, agent)
  }
  return agent
}

/** Sends one request from `from` (keep-alive per source address); never rejects: failures come back as status 0. */
export function call(
  url: string,
  options: { from: string; method?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number },
): Promise<Reply> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body)
  const headers: Record<string, string> = { ...options.headers }
  if (body !== undefined) {
    headers['content-type'] = 'application/json'
    headers['content-length'] = String(Buffer.byteLength(body))
  }
  return new Promise((resolve) => {
    const req = request(url, { method: options.method ?? (body === undefined ? 'GET' : 'POST'), agent: agentFor(options.from), headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }))
      res.on('error', (err) => resolve({ status: 0, text: '', headers: {}, error: (err as NodeJS.ErrnoException).code ?? err.message }))
    })
    req.setTimeout(options.timeoutMs ?? 15_000, () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })))
    req.on('error', (err) => resolve({ status: 0, text: '', headers: {}, error: (err as NodeJS.ErrnoException).code ?? err.message }))
    req.end(body)
  })
}

/** Closes every keep-alive connection of the clients. */
export function closeClients(): void {
  for (const agent of agents.values()) agent.destroy()
  agents.clear()
}

/** One SSE block event as received, with its arrival time. */
export interface StreamEvent {
  at: number
  event: string
  data: string
}

/** A stream followed across reconnects. */
export interface FollowedStream {
  /** Every event received, over every connection. */
  events: StreamEvent[]
  /** Epoch ms of each connection's 200, in order. */
  opened: number[]
  /** Epoch ms of each connection's end or failure, in order. */
  ended: number[]
  /** Stops following and closes the connection. */
  close(): void
}

/**
 * Follows `GET url` as SSE from `from`: parses events, and when the connection ends or fails, opens it again after
 * `retryMs` (a game server's watch does the same, through the balancer, which picks a front that is up).
 */
export function followStream(url: string, from: string, retryMs = 250): FollowedStream {
  const stream: FollowedStream = { events: [], opened: [], ended: [], close: () => undefined }
  let closed = false
  let current: ReturnType<typeof request> | undefined
  const agent = new Agent({ keepAlive: false, localAddress: from })
  const connect = () => {
    if (closed) return
    let ended = false
    const end = () => {
      if (ended) return
      ended = true
      stream.ended.push(Date.now())
      if (!closed) setTimeout(connect, retryMs)
    }
    const req = request(url, { agent, headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume()
        res.on('end', end)
        return
      }
      stream.opened.push(Date.now())
      res.setEncoding('utf8')
      let buffer = ''
      res.on('data', (chunk: string) => {
        buffer += chunk
        for (;;) {
          const cut = buffer.indexOf('\n\n')
          if (cut < 0) break
          const raw = buffer.slice(0, cut)
          buffer = buffer.slice(cut + 2)
          let event = 'message'
          const data: string[] = []
          for (const line of raw.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim()
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''))
          }
          if (data.length > 0) stream.events.push({ at: Date.now(), event, data: data.join('\n') })
        }
      })
      res.on('end', end)
      res.on('error', end)
      res.on('close', end)
    })
    req.on('error', end)
    req.end()
    current = req
  }
  connect()
  stream.close = () => {
    closed = true
    current?.destroy()
    agent.destroy()
  }
  return stream
}

/** Sends raw bytes from `from` and returns the first response line and how long it took (null: no answer in time). */
export function rawExchange(host: string, port: number, from: string, bytes: string, timeoutMs: number): Promise<{ statusLine: string | null; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now()
    const socket = connect({ host, port, localAddress: from }, () => socket.write(bytes, 'latin1'))
    let got = ''
    const done = (statusLine: string | null) => {
      clearTimeout(timer)
      socket.destroy()
      resolve({ statusLine, ms: Date.now() - started })
    }
    const timer = setTimeout(() => done(null), timeoutMs)
    socket.on('data', (d: Buffer) => {
      got += d.toString('latin1')
      const end = got.indexOf('\r\n')
      if (end >= 0) done(got.slice(0, end))
    })
    socket.on('error', () => done(null))
    socket.on('close', () => done(got === '' ? null : got.split('\r\n')[0]!))
  })
}
