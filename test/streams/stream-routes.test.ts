/**
 * The stream routes (SSE GET /api/v1/stream/{codes}, WebSocket /api/v1/ws) through the real front and Redis: first
 * blocks, changes written through the presence store and the code service, errors and every limit.
 */
import t from 'tap'
import { renderActivityGroups } from '../../src/presence/model/activity.js'
import { MARKS_REFRESH_MS } from '../../src/redis/shard-marks.js'
import { eventually, getText, startStack, type Stack } from '../helpers/stack.js'
import { openSse, openWs, type SseClient, type WsClient } from '../helpers/stream-clients.js'

let stack: Stack
/** The streams the front cut off as slow consumers and the streams it counted closed, by kind, as its observer hooks report them. */
const cutOff: string[] = []
const closed: string[] = []
let user = 300000000000000000n
const GAME = (name: string) => renderActivityGroups([{ type: 0, name }], 'Roblox')

async function linked(username: string): Promise<string> {
  const { code } = await stack.codes.issue(String(++user))
  const bound = await stack.codes.bind(code.code, { platformUserId: String(user % 1_000_000n), platformUsername: username }, { source: 'test' })
  if (bound.status !== 'bound') throw new Error(`setup bind gave ${bound.status}`)
  return code.code
}
const callbacks = async (code: string) => (await getText(`${stack.api}/callbacks/${code}`)).text
const rpc = async (code: string) => (await getText(`${stack.api}/rpc/${code}`)).text
const wsUrl = (query = '') => `${stack.origin.replace('http', 'ws')}/api/v1/ws${query}`
const streams: (SseClient | WsClient)[] = []
const sse = async (path: string) => {
  const s = await openSse(stack.origin, path)
  streams.push(s)
  return s
}
const ws = async (query = '') => {
  const s = await openWs(wsUrl(query))
  streams.push(s)
  return s
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
    observer: { streams: () => ({ slowConsumerCut: (kind) => cutOff.push(kind), closed: (kind) => closed.push(kind) }) },
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

t.test('SSE', async (t) => {
  t.test('sends each code its current block as callbacks renders it, then each change, and heartbeats', async (t) => {
    const a = await linked('Stream_A')
    const b = await linked('Stream_B')
    await stack.presence.set(a, { shard: 0, status: 'online', activity: GAME('Chess') })
    const s = await sse(`/api/v1/stream/${a}&${b}`)
    t.equal(s.status, 200)
    t.match(s.headers, /content-type: text\/event-stream/i)
    const first = [await s.next(undefined, 'first block'), await s.next(undefined, 'second block')]
    t.same(first.map((e) => e.event), ['block', 'block'])
    t.same(first.map((e) => e.data).sort(), [await callbacks(a), await callbacks(b)].sort(), 'the data is the callbacks block, byte for byte')
    t.equal(first.find((e) => e.data.startsWith(`{${a};`))?.data, `{${a};\nStream_A;\nPlaying,\nChess;\n}\n`)

    await stack.presence.set(b, { shard: 0, status: 'online', activity: GAME('Go') })
    const changed = await s.next(undefined, 'the change')
    t.equal(changed.data, `{${b};\nStream_B;\nPlaying,\nGo;\n}\n`)
    t.equal(changed.data, await callbacks(b))
    t.ok(Number(changed.id) > Number(first[1]!.id), 'event ids grow')

    // A write that changes nothing visible sends nothing; the next real change comes next.
    await stack.presence.set(b, { shard: 0, status: 'idle', activity: GAME('Go') })
    await stack.codes.act(a, 'pause', { source: 'test' })
    const paused = await s.next(undefined, 'the pause')
    t.equal(paused.data, await callbacks(a))
    t.match(paused.data, /Detection Paused/)
    t.same(s.events, [], 'nothing else was sent')
    await eventually(async () => (s.comments.includes('ping') ? true : undefined), 5000, 'a heartbeat')
  })

  t.test('?view=rpc streams rpc blocks', async (t) => {
    const a = await linked('Stream_R')
    await stack.presence.set(a, { shard: 0, status: 'online', activity: GAME('Chess') })
    const s = await sse(`/api/v1/stream/${a}?view=rpc`)
    t.equal((await s.next()).data, await rpc(a))
    await stack.presence.clear(a)
    t.equal((await s.next()).data, await rpc(a))
  })

  t.test('bad requests get the callbacks errors, in plain text, before any stream opens', async (t) => {
    const none = await getText(`${stack.api}/stream/abc`)
    t.equal(none.status, 400)
    t.match(none.text, /no usable code/)
    const many = await getText(`${stack.api}/stream/AAA1&AAA2&AAA3&AAA4&AAA5&AAA6`)
    t.equal(many.status, 400)
    t.equal(many.text, 'too many codes: at most 5 per stream\n')
    const view = await getText(`${stack.api}/stream/AAA1?view=json`)
    t.equal(view.status, 400)
  })
})

t.test('WebSocket', async (t) => {
  t.test('subscribe gives the current blocks then an ack; changes follow; unsubscribe stops them', async (t) => {
    const a = await linked('Sock_A')
    const b = await linked('Sock_B')
    const c = await ws()
    c.send({ op: 'subscribe', codes: [a, b, a] })
    const blocks = [await c.next((m) => m.op === 'block'), await c.next((m) => m.op === 'block')]
    t.same(blocks.map((m) => m.code).sort(), [a, b].sort())
    for (const m of blocks) t.equal(m.block, await callbacks(m.code))
    t.same(await c.next((m) => m.op === 'subscribed'), { op: 'subscribed', codes: [a, b] })
    await stack.presence.set(a, { shard: 0, status: 'online', activity: GAME('Tetris') })
    t.same(await c.next(), { op: 'block', code: a, block: `{${a};\nSock_A;\nPlaying,\nTetris;\n}\n` })
    c.send({ op: 'unsubscribe', codes: [a] })
    t.same(await c.next(), { op: 'unsubscribed', codes: [a] })
    await stack.presence.set(a, { shard: 0, status: 'online', activity: GAME('Pong') })
    await stack.presence.set(b, { shard: 0, status: 'online', activity: GAME('Pong') })
    t.same(await c.next(), { op: 'block', code: b, block: await callbacks(b) }, 'only the code still subscribed')
    t.same(c.messages, [])
  })

  t.test('?view=rpc sends rpc blocks', async (t) => {
    const a = await linked('Sock_R')
    const c = await ws('?view=rpc')
    c.send({ op: 'subscribe', codes: [a] })
    t.same(await c.next(), { op: 'block', code: a, block: await rpc(a) })
  })

  t.test('malformed messages get error messages with the HTTP error codes; repeated abuse closes the socket', async (t) => {
    const c = await ws()
    c.send('{nope')
    t.match(await c.next(), { op: 'error', code: 'invalid_json' })
    c.send({ op: 'dance', codes: [] })
    t.match(await c.next(), { op: 'error', code: 'validation_failed' })
    c.send({ op: 'subscribe', codes: ['abcd', 'AAA1'] })
    t.match(await c.next(), { op: 'error', code: 'invalid_code' })
    c.send({ op: 'subscribe', codes: ['AAA1', 'AAA2', 'AAA3', 'AAA4', 'AAA5', 'AAA6'] })
    t.match(await c.next(), { op: 'error', code: 'too_many_codes', message: /at most 5 per stream/ })
    for (let i = 0; i < 10; i++) c.send('x')
    await eventually(async () => c.closed ?? undefined, 5000, 'the close')
    t.equal(c.closed?.code, 1008)
  })
})

t.test('limits', async (t) => {
  t.test('open streams per client: the fifth gets 429 too_many_streams (SSE and WebSocket alike)', async (t) => {
    const a = await linked('Limit_A')
    for (let i = 0; i < 2; i++) await sse(`/api/v1/stream/${a}`)
    await ws()
    await ws()
    const refused = await getText(`${stack.api}/stream/${a}`)
    t.equal(refused.status, 429)
    t.match(refused.text, /too many open streams: at most 4 per client/)
    await t.rejects(openWs(wsUrl()), /upgrade refused: 429/)
    streams.pop()?.close()
    await new Promise((r) => setTimeout(r, 100))
    const again = await sse(`/api/v1/stream/${a}`)
    t.equal(again.status, 200, 'a closed stream frees its place')
  })

  /** Opens an SSE stream and a WebSocket on a new code, both of which then stop reading. */
  const stalled = async (username: string) => {
    const a = await linked(username)
    const s = await sse(`/api/v1/stream/${a}`)
    await s.next()
    s.socket.pause()
    const c = await ws()
    c.send({ op: 'subscribe', codes: [a] })
    await c.next((m) => m.op === 'subscribed')
    // The WebSocket client stops reading too: its socket is paused under the ws library.
    const wsSocket = (c.ws as unknown as { _socket: import('node:net').Socket })._socket
    wsSocket.pause()
    return { a, s, c, resume: () => (s.socket.resume(), wsSocket.resume()) }
  }
  /**
   * Sends changes of 60 kB until the front has cut both streams off. How many that takes depends on the kernel's socket
   * buffers (which fill before the front's own) and on how many changes the hub coalesces under load, so the loop
   * watches the front's own hook rather than counting; each change gets a moment so the hub pushes it.
   */
  const floodUntilCut = async (t: { pass(message: string): void }, a: string) => {
    cutOff.length = 0
    const until = Date.now() + 30_000
    for (let i = 0; !(cutOff.includes('sse') && cutOff.includes('ws')); i++) {
      if (Date.now() > until) throw new Error(`the front did not cut both streams off after ${i} changes of 60 kB (cut: ${cutOff.join(', ') || 'none'})`)
      await stack.presence.set(a, { shard: 0, status: 'online', activity: `Playing,\n${String(i).padStart(6, '0')}${'x'.repeat(60_000)};\n` })
      await new Promise((r) => setTimeout(r, 5))
    }
    t.pass('the front cut both streams off')
  }

  t.test('a client that stops reading for a few seconds is cut off, and still reads a last slow_consumer message', async (t) => {
    const { a, s, c, resume } = await stalled('Slow_SSE')
    await floodUntilCut(t, a)
    // The client reads again 3 s later, within SLOW_CONSUMER_GRACE_MS (5 s). Before the grace, the WebSocket was closed
    // at the cut and uWS dropped what was still buffered about 2 s later, the last message with it.
    await new Promise((r) => setTimeout(r, 3000))
    resume()
    const last = await s.next((e) => e.event === 'error', 'the slow_consumer event', 15_000)
    t.match(JSON.parse(last.data), { code: 'slow_consumer' })
    await eventually(async () => (s.ended ? true : undefined), 10_000, 'the SSE stream to end')
    t.match(await c.next((m) => m.op === 'error', 'the slow_consumer message', 15_000), { code: 'slow_consumer' })
    await eventually(async () => c.closed ?? undefined, 10_000, 'the WebSocket to close')
    t.equal(c.closed?.code, 1008)
    t.equal(c.closed?.reason, 'slow_consumer')
  })

  t.test('a client that never reads again is closed after the grace, and its streams no longer count', async (t) => {
    const { a } = await stalled('Slow_Never')
    closed.length = 0
    await floodUntilCut(t, a)
    await eventually(async () => (closed.includes('sse') && closed.includes('ws') ? true : undefined), 15_000, 'the front to close both streams')
    // Both places are free again: the per-client limit (4) takes 4 new streams (on a code with a small block).
    const b = await linked('Slow_After')
    for (let i = 0; i < 2; i++) t.equal((await sse(`/api/v1/stream/${b}`)).status, 200)
    await ws()
    await ws()
    const fifth = await getText(`${stack.api}/stream/${b}`)
    t.equal(fifth.status, 429, 'and refuses the fifth')
    t.match(fifth.text, /too many open streams/)
  })

  t.test('the unknown-code budget applies to codes subscribed', async (t) => {
    const s1 = await getText(`${stack.api}/stream/ZZZ1&ZZZ2&ZZZ3&ZZZ4`)
    t.equal(s1.status, 429)
    t.match(s1.text, /too many unknown codes/)
    const c = await ws()
    c.send({ op: 'subscribe', codes: ['ZZY1', 'ZZY2', 'ZZY3', 'ZZY4'] })
    t.match(await c.next(), { op: 'error', code: 'unknown_code_budget', codes: ['ZZY1', 'ZZY2', 'ZZY3', 'ZZY4'] })
    const a = await linked('Budget_OK')
    c.send({ op: 'subscribe', codes: [a] })
    t.match(await c.next(), { op: 'block', code: a })
  })
})
