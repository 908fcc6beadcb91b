/** Stream clients for the tests: an SSE reader over a raw socket (it can stop reading) and a WebSocket (the ws package). */
import { connect, type Socket } from 'node:net'
import WebSocket from 'ws'
import { eventually } from './stack.js'

/** One server-sent event as a client sees it: the data lines joined with \n (the SSE rules). */
export interface SseEvent {
  event: string
  id: string | undefined
  data: string
}

/** An SSE connection: the HTTP status and headers, the events and comments so far. */
export interface SseClient {
  socket: Socket
  status: number
  headers: string
  events: SseEvent[]
  comments: string[]
  ended: boolean
  /** Waits for the n-th event (1-based) matching `accept`. */
  next(accept?: (e: SseEvent) => boolean, what?: string, timeoutMs?: number): Promise<SseEvent>
  close(): void
}

/** Opens `GET path` on the origin and parses its event stream (chunked transfer). */
export async function openSse(origin: string, path: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const { hostname, port } = new URL(origin)
  const socket = connect(Number(port), hostname)
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAccept: text/event-stream\r\n${extra}\r\n`)
  let raw = Buffer.alloc(0)
  let body = ''
  let headDone = false
  const client: SseClient = {
    socket,
    status: 0,
    headers: '',
    events: [],
    comments: [],
    ended: false,
    async next(accept = () => true, what = 'an event', timeoutMs = 10_000) {
      return eventually(async () => {
        const i = client.events.findIndex(accept)
        return i < 0 ? undefined : client.events.splice(i, 1)[0]
      }, timeoutMs, what)
    },
    close: () => socket.destroy(),
  }
  let chunked = ''
  const parseBody = () => {
    // De-chunk what has arrived, then cut complete events (blank-line separated).
    for (;;) {
      // uWS sends the CRLF that ends a chunk together with the next chunk's size line.
      if (chunked.startsWith('\r\n')) chunked = chunked.slice(2)
      const nl = chunked.indexOf('\r\n')
      if (nl < 0) return
      const size = parseInt(chunked.slice(0, nl), 16)
      if (chunked.length < nl + 2 + size) return
      if (size === 0) client.ended = true
      body += chunked.slice(nl + 2, nl + 2 + size)
      chunked = chunked.slice(nl + 2 + size)
      for (;;) {
        const end = body.indexOf('\n\n')
        if (end < 0) break
        const block = body.slice(0, end)
        body = body.slice(end + 2)
        const data: string[] = []
        let event = 'message'
        let id: string | undefined
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) client.comments.push(line.slice(1).trim())
          else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5))
          else if (line.startsWith('event: ')) event = line.slice(7)
          else if (line.startsWith('id: ')) id = line.slice(4)
        }
        if (data.length > 0) client.events.push({ event, id, data: data.join('\n') })
      }
    }
  }
  socket.on('data', (chunk: Buffer) => {
    if (headDone) {
      chunked += chunk.toString('utf8')
      return parseBody()
    }
    raw = Buffer.concat([raw, chunk])
    const end = raw.indexOf('\r\n\r\n')
    if (end < 0) return
    headDone = true
    client.headers = raw.subarray(0, end).toString('latin1')
    client.status = Number(/^HTTP\/1\.1 (\d{3})/.exec(client.headers)?.[1] ?? 0)
    const rest = raw.subarray(end + 4).toString('utf8')
    if (/transfer-encoding: chunked/i.test(client.headers)) {
      chunked += rest
      parseBody()
    } else body += rest
  })
  socket.on('close', () => {
    client.ended = true
  })
  socket.on('error', () => {})
  await eventually(async () => (client.status !== 0 || client.ended ? true : undefined), 10_000, 'the stream response')
  return client
}

/** A WebSocket client keeping every message it got. */
export interface WsClient {
  ws: WebSocket
  messages: any[]
  closed: { code: number; reason: string } | null
  send(message: unknown): void
  next(accept?: (m: any) => boolean, what?: string, timeoutMs?: number): Promise<any>
  close(): void
}

/** Opens the WebSocket at `url` (ws://...); rejects with the HTTP status when the upgrade is refused. */
export async function openWs(url: string): Promise<WsClient> {
  const ws = new WebSocket(url)
  const client: WsClient = {
    ws,
    messages: [],
    closed: null,
    send: (message) => ws.send(typeof message === 'string' ? message : JSON.stringify(message)),
    next: (accept = () => true, what = 'a message', timeoutMs = 10_000) =>
      eventually(async () => {
        const i = client.messages.findIndex(accept)
        return i < 0 ? undefined : client.messages.splice(i, 1)[0]
      }, timeoutMs, what),
    close: () => ws.terminate(),
  }
  ws.on('message', (data) => client.messages.push(JSON.parse(String(data))))
  ws.on('close', (code, reason) => {
    client.closed = { code, reason: String(reason) }
  })
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode })))
    ws.once('error', reject)
  })
  return client
}
