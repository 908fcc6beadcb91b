/**
 * The SSE route (GET /api/v1/stream/{codes}) through the real front and Redis: first blocks, changes written through
 * the presence store and the code service, heartbeats, and the errors of a bad opening.
 */
import t from 'tap'
import { renderActivityGroups } from '../../../src/presence/model/activity.js'
import { eventually, getText } from '../../helpers/stack.js'
import { streamStack } from '../../helpers/stream-stack.js'

const GAME = (name: string) => renderActivityGroups([{ type: 0, name }], 'Roblox')
const s = streamStack(t)

t.test('SSE', async (t) => {
  t.test('sends each code its current block as callbacks renders it, then each change, and heartbeats', async (t) => {
    const { stack } = s
    const a = await s.linked('Stream_A')
    const b = await s.linked('Stream_B')
    await stack.presence.set(a, { shard: 0, status: 'online', activity: GAME('Chess') })
    const c = await s.sse(`/api/v1/stream/${a}&${b}`)
    t.equal(c.status, 200)
    t.match(c.headers, /content-type: text\/event-stream/i)
    const first = [await c.next(undefined, 'first block'), await c.next(undefined, 'second block')]
    t.same(first.map((e) => e.event), ['block', 'block'])
    t.same(first.map((e) => e.data).sort(), [await s.callbacks(a), await s.callbacks(b)].sort(), 'the data is the callbacks block, byte for byte')
    t.equal(first.find((e) => e.data.startsWith(`{${a};`))?.data, `{${a};\nStream_A;\nPlaying,\nChess;\n}\n`)

    await stack.presence.set(b, { shard: 0, status: 'online', activity: GAME('Go') })
    const changed = await c.next(undefined, 'the change')
    t.equal(changed.data, `{${b};\nStream_B;\nPlaying,\nGo;\n}\n`)
    t.equal(changed.data, await s.callbacks(b))
    t.ok(Number(changed.id) > Number(first[1]!.id), 'event ids grow')

    // A write that changes nothing visible sends nothing; the next real change comes next.
    await stack.presence.set(b, { shard: 0, status: 'idle', activity: GAME('Go') })
    await stack.codes.act(a, 'pause', { source: 'test' })
    const paused = await c.next(undefined, 'the pause')
    t.equal(paused.data, await s.callbacks(a))
    t.match(paused.data, /Detection Paused/)
    t.same(c.events, [], 'nothing else was sent')
    await eventually(async () => (c.comments.includes('ping') ? true : undefined), 5000, 'a heartbeat')
  })

  t.test('?view=rpc streams rpc blocks', async (t) => {
    const a = await s.linked('Stream_R')
    await s.stack.presence.set(a, { shard: 0, status: 'online', activity: GAME('Chess') })
    const c = await s.sse(`/api/v1/stream/${a}?view=rpc`)
    t.equal((await c.next()).data, await s.rpc(a))
    await s.stack.presence.clear(a)
    t.equal((await c.next()).data, await s.rpc(a))
  })

  t.test('bad requests get the callbacks errors, in plain text, before any stream opens', async (t) => {
    const none = await getText(`${s.stack.api}/stream/abc`)
    t.equal(none.status, 400)
    t.match(none.text, /no usable code/)
    const many = await getText(`${s.stack.api}/stream/AAA1&AAA2&AAA3&AAA4&AAA5&AAA6`)
    t.equal(many.status, 400)
    t.equal(many.text, 'too many codes: at most 5 per stream\n')
    const view = await getText(`${s.stack.api}/stream/AAA1?view=json`)
    t.equal(view.status, 400)
  })
})
