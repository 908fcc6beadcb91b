/**
 * What the SSE and WebSocket routes share (src/http/stream-opening.ts), through the real front and Redis: open
 * streams per client across both kinds, slow consumers cut off and closed after the grace, and the unknown-code
 * budget on codes streamed or subscribed.
 */
import type { Socket } from 'node:net'
import t from 'tap'
import { openWs } from '../helpers/stream-clients.js'
import { eventually, getText } from '../helpers/stack.js'
import { streamStack } from '../helpers/stream-stack.js'

/** The streams the front cut off as slow consumers and the streams it counted closed, by kind, as its observer hooks report them. */
const cutOff: string[] = []
const closed: string[] = []
const s = streamStack(t, { slowConsumerCut: (kind) => cutOff.push(kind), closed: (kind) => closed.push(kind) })

t.test('limits', async (t) => {
  t.test('open streams per client: the fifth gets 429 too_many_streams (SSE and WebSocket alike)', async (t) => {
    const a = await s.linked('Limit_A')
    for (let i = 0; i < 2; i++) await s.sse(`/api/v1/stream/${a}`)
    await s.ws()
    await s.ws()
    const refused = await getText(`${s.stack.api}/stream/${a}`)
    t.equal(refused.status, 429)
    t.match(refused.text, /too many open streams: at most 4 per client/)
    await t.rejects(openWs(s.wsUrl()), /upgrade refused: 429/)
    s.closeLast()
    await new Promise((r) => setTimeout(r, 100))
    const again = await s.sse(`/api/v1/stream/${a}`)
    t.equal(again.status, 200, 'a closed stream frees its place')
  })

  /** Opens an SSE stream and a WebSocket on a new code, both of which then stop reading. */
  const stalled = async (username: string) => {
    const a = await s.linked(username)
    const sse = await s.sse(`/api/v1/stream/${a}`)
    await sse.next()
    sse.socket.pause()
    const c = await s.ws()
    c.send({ op: 'subscribe', codes: [a] })
    await c.next((m) => m.op === 'subscribed')
    // The WebSocket client stops reading too: its socket is paused under the ws library.
    const wsSocket = (c.ws as unknown as { _socket: Socket })._socket
    wsSocket.pause()
    return { a, sse, c, resume: () => (sse.socket.resume(), wsSocket.resume()) }
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
      await s.stack.presence.set(a, { shard: 0, status: 'online', activity: `Playing,\n${String(i).padStart(6, '0')}${'x'.repeat(60_000)};\n` })
      await new Promise((r) => setTimeout(r, 5))
    }
    t.pass('the front cut both streams off')
  }

  t.test('a client that stops reading for a few seconds is cut off, and still reads a last slow_consumer message', async (t) => {
    const { a, sse, c, resume } = await stalled('Slow_SSE')
    await floodUntilCut(t, a)
    // The client reads again 3 s later, within SLOW_CONSUMER_GRACE_MS (5 s). Before the grace, the WebSocket was closed
    // at the cut and uWS dropped what was still buffered about 2 s later, the last message with it.
    await new Promise((r) => setTimeout(r, 3000))
    resume()
    const last = await sse.next((e) => e.event === 'error', 'the slow_consumer event', 15_000)
    t.match(JSON.parse(last.data), { code: 'slow_consumer' })
    await eventually(async () => (sse.ended ? true : undefined), 10_000, 'the SSE stream to end')
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
    const b = await s.linked('Slow_After')
    for (let i = 0; i < 2; i++) t.equal((await s.sse(`/api/v1/stream/${b}`)).status, 200)
    await s.ws()
    await s.ws()
    const fifth = await getText(`${s.stack.api}/stream/${b}`)
    t.equal(fifth.status, 429, 'and refuses the fifth')
    t.match(fifth.text, /too many open streams/)
  })

  t.test('the unknown-code budget applies to codes subscribed', async (t) => {
    const s1 = await getText(`${s.stack.api}/stream/ZZZ1&ZZZ2&ZZZ3&ZZZ4`)
    t.equal(s1.status, 429)
    t.match(s1.text, /too many unknown codes/)
    const c = await s.ws()
    c.send({ op: 'subscribe', codes: ['ZZY1', 'ZZY2', 'ZZY3', 'ZZY4'] })
    t.match(await c.next(), { op: 'error', code: 'unknown_code_budget', codes: ['ZZY1', 'ZZY2', 'ZZY3', 'ZZY4'] })
    const a = await s.linked('Budget_OK')
    c.send({ op: 'subscribe', codes: [a] })
    t.match(await c.next(), { op: 'block', code: a })
  })
})
