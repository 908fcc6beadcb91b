/**
 * The stack the stream route tests share (test/http/routes/sse.test.ts, ws.test.ts, test/http/stream-opening.test.ts):
 * a front with small stream limits (5 codes per stream, 4 streams per client, a 200 ms heartbeat, 16 KiB of buffered
 * bytes, an unknown-code budget of 3), a live shard 0, and helpers to link codes, read their blocks and open streams
 * that are closed after each test.
 */
import type { StreamObserver } from '../../src/http/front-observer.js'
import { MARKS_REFRESH_MS } from '../../src/redis/shard-marks.js'
import { getText, startStack, type Stack } from './stack.js'
import { openSse, openWs, type SseClient, type WsClient } from './stream-clients.js'

/** A minimal view of a tap test: setup and cleanup hooks. */
interface Hooks {
  teardown(fn: () => unknown): void
  before(fn: () => Promise<void>): void
  afterEach(fn: () => Promise<void>): void
}

/** The shared stack and its helpers; `stack` is set once tap's `before` has run. */
export interface StreamStack {
  readonly stack: Stack
  /** Issues a code and binds it to `username` (a new Discord user each time). */
  linked(username: string): Promise<string>
  callbacks(code: string): Promise<string>
  rpc(code: string): Promise<string>
  wsUrl(query?: string): string
  /** Opens an SSE stream on `path`, closed after the test. */
  sse(path: string): Promise<SseClient>
  /** Opens a WebSocket (with `query`), closed after the test. */
  ws(query?: string): Promise<WsClient>
  /** Forgets the last stream opened and closes it. */
  closeLast(): void
}

/** Sets up the stack on `t` (before all tests) and closes each test's streams after it. */
export function streamStack(t: Hooks, observer?: StreamObserver): StreamStack {
  let stack: Stack | undefined
  let user = 300000000000000000n
  const streams: (SseClient | WsClient)[] = []
  const running = (): Stack => {
    if (stack === undefined) throw new Error('the stream stack is not started yet')
    return stack
  }
  t.before(async () => {
    stack = await startStack(t, {
      env: {
        RATE_LIMITS: 'off',
        STREAM_MAX_CODES: '5',
        STREAM_MAX_PER_CLIENT: '4',
        STREAM_HEARTBEAT_MS: '200',
        STREAM_MAX_BUFFERED_BYTES: '16384',
        UNKNOWN_CODE_BUDGET: '3',
      },
      consumers: [],
      ...(observer === undefined ? {} : { observer: { streams: () => observer } }),
    })
    await stack.presence.markLive(0, 3_600_000)
    // The front's marks watcher reads the marks once a second: a shard marked after it started counts from its next read.
    await new Promise((resolve) => setTimeout(resolve, MARKS_REFRESH_MS + 200))
  })
  t.afterEach(async () => {
    for (const s of streams.splice(0)) s.close()
    // The front counts open streams per client; wait until it saw these close.
    await new Promise((r) => setTimeout(r, 100))
  })
  const wsUrl = (query = '') => `${running().origin.replace('http', 'ws')}/api/v1/ws${query}`
  return {
    get stack() {
      return running()
    },
    async linked(username) {
      const s = running()
      const { code } = await s.codes.issue(String(++user))
      const bound = await s.codes.bind(code.code, { platformUserId: String(user % 1_000_000n), platformUsername: username }, { source: 'test' })
      if (bound.status !== 'bound') throw new Error(`setup bind gave ${bound.status}`)
      return code.code
    },
    callbacks: async (code) => (await getText(`${running().api}/callbacks/${code}`)).text,
    rpc: async (code) => (await getText(`${running().api}/rpc/${code}`)).text,
    wsUrl,
    async sse(path) {
      const s = await openSse(running().origin, path)
      streams.push(s)
      return s
    },
    async ws(query = '') {
      const s = await openWs(wsUrl(query))
      streams.push(s)
      return s
    },
    closeLast() {
      streams.pop()?.close()
    },
  }
}
