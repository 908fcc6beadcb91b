/**
 * The WebSocket route (/api/v1/ws) through the real front and Redis: subscribe and unsubscribe, the blocks and their
 * changes, and malformed messages up to the close.
 */
import t from 'tap'
import { renderActivityGroups } from '../../../src/presence/model/activity.js'
import { eventually } from '../../helpers/stack.js'
import { streamStack } from '../../helpers/stream-stack.js'

const GAME = (name: string) => renderActivityGroups([{ type: 0, name }], 'Roblox')
const s = streamStack(t)

t.test('WebSocket', async (t) => {
  t.test('subscribe gives the current blocks then an ack; changes follow; unsubscribe stops them', async (t) => {
    const { stack } = s
    const a = await s.linked('Sock_A')
    const b = await s.linked('Sock_B')
    const c = await s.ws()
    c.send({ op: 'subscribe', codes: [a, b, a] })
    const blocks = [await c.next((m) => m.op === 'block'), await c.next((m) => m.op === 'block')]
    t.same(blocks.map((m) => m.code).sort(), [a, b].sort())
    for (const m of blocks) t.equal(m.block, await s.callbacks(m.code))
    t.same(await c.next((m) => m.op === 'subscribed'), { op: 'subscribed', codes: [a, b] })
    await stack.presence.set(a, { shard: 0, status: 'online', activity: GAME('Tetris') })
    t.same(await c.next(), { op: 'block', code: a, block: `{${a};\nSock_A;\nPlaying,\nTetris;\n}\n` })
    c.send({ op: 'unsubscribe', codes: [a] })
    t.same(await c.next(), { op: 'unsubscribed', codes: [a] })
    await stack.presence.set(a, { shard: 0, status: 'online', activity: GAME('Pong') })
    await stack.presence.set(b, { shard: 0, status: 'online', activity: GAME('Pong') })
    t.same(await c.next(), { op: 'block', code: b, block: await s.callbacks(b) }, 'only the code still subscribed')
    t.same(c.messages, [])
  })

  t.test('?view=rpc sends rpc blocks', async (t) => {
    const a = await s.linked('Sock_R')
    const c = await s.ws('?view=rpc')
    c.send({ op: 'subscribe', codes: [a] })
    t.same(await c.next(), { op: 'block', code: a, block: await s.rpc(a) })
  })

  t.test('malformed messages get error messages with the HTTP error codes; repeated abuse closes the socket', async (t) => {
    const c = await s.ws()
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
