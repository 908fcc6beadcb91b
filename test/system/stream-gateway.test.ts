/**
 * Streams end to end: a presence change in the Discord sandbox, seen by the real gateway (discord.js), arrives on an
 * open SSE stream and on a WebSocket; and after the front's feed connection is killed, streams are still correct.
 */
import t from 'tap'
import { eventually, getText } from '../helpers/stack.js'
import { startGatewayStack, type GatewayStack } from '../helpers/gateway-stack.js'
import { openSse, openWs } from '../helpers/stream-clients.js'

let g: GatewayStack
let n = 810000000000000000n
const GAME = { type: 0, name: 'Minecraft' }
const SONG = { type: 2, name: 'Spotify', details: 'Blinding Lights', state: 'The Weeknd' }

t.before(async () => {
  g = await startGatewayStack(t)
})

t.test('a presence change in the sandbox arrives on an open SSE stream and on a WebSocket', async (t) => {
  const { user, code } = await g.linkedUser(String(++n), 'streamer', 'Stream_R', 11)
  const sse = await openSse(g.stack.origin, `/api/v1/stream/${code}`)
  t.teardown(() => sse.close())
  const ws = await openWs(`${g.stack.origin.replace('http', 'ws')}/api/v1/ws`)
  t.teardown(() => ws.close())
  ws.send({ op: 'subscribe', codes: [code] })
  t.equal((await sse.next()).data, `{${code};\nStream_R;\nNo activity detected;\n}\n`)
  t.same(await ws.next(), { op: 'block', code, block: `{${code};\nStream_R;\nNo activity detected;\n}\n` })
  t.same(await ws.next(), { op: 'subscribed', codes: [code] })

  await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [SONG, GAME] })
  const expected = `{${code};\nStream_R;\nListening to Spotify,\nBlinding Lights,\nThe Weeknd;\nPlaying,\nMinecraft;\n}\n`
  t.equal((await sse.next(undefined, 'the presence on SSE')).data, expected)
  t.same(await ws.next(undefined, 'the presence on the WebSocket'), { op: 'block', code, block: expected })
  t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text, expected, 'what callbacks says')

  await g.control('POST', 'presence', { user_id: user, status: 'offline', activities: [] })
  t.match((await sse.next(undefined, 'offline on SSE')).data, /No activity detected/)
  t.match(await ws.next(undefined, 'offline on the WebSocket'), { op: 'block', block: /No activity detected/ })
})

t.test('feed loss: after the front feed connection is killed, changes made meanwhile and after still arrive', async (t) => {
  const { user, code } = await g.linkedUser(String(++n), 'feedloss', 'Feed_R', 12)
  const sse = await openSse(g.stack.origin, `/api/v1/stream/${code}`)
  t.teardown(() => sse.close())
  await sse.next()
  // Only this front's feed subscriber: it is named with this test's Redis prefix (Redis is shared with other tests).
  const name = `presence-link:test:feed:${g.stack.config.redisPrefix}`
  const kill = async () => {
    const list = String(await g.stack.redis.call('CLIENT', 'LIST', 'TYPE', 'pubsub'))
    const id = list.split('\n').find((line) => line.includes(`name=${name} `))?.match(/^id=(\d+)/)?.[1]
    if (id === undefined) throw new Error('the front feed connection is not in CLIENT LIST')
    await g.stack.redis.call('CLIENT', 'KILL', 'ID', id)
  }
  await kill()
  // Written while the feed may be down: its announcement can be lost; the stream must still show it.
  await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [GAME] })
  t.match((await sse.next(undefined, 'the change made around the loss')).data, /Playing,\nMinecraft;/)
  await eventually(async () => {
    const list = String(await g.stack.redis.call('CLIENT', 'LIST', 'TYPE', 'pubsub'))
    return list.includes(`name=${name} `) ? true : undefined
  }, 10_000, 'the feed to reconnect')
  await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [SONG] })
  t.match((await sse.next(undefined, 'a change after the reconnect')).data, /Listening to Spotify/)
  t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text.includes('Spotify'), true)
})
