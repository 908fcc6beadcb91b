/**
 * The Roblox module's `watch` over the service's real streams: the module (clients/roblox/PresenceLink/)
 * under Luau with the test stand-in for HttpService (test/clients/roblox/harness.lua, whose WebStreamClient speaks
 * SSE or WebSocket over a raw socket), against the real front and the Discord sandbox. Polling is made impossible (a poll
 * interval and a stream retry of an hour), so every block must have come through the stream. These run as in Studio
 * (RunService:IsStudio() true): live servers never open streams (PresenceLink.test.ts checks that).
 */
import t, { type Test } from 'tap'
import { startGatewayStack, type GatewayStack } from '../../helpers/gateway-stack.js'
import { runLuauScenario } from '../../helpers/luau-scenario.js'

/** Two linked players and the environment of the stream scenario. */
async function setUp(t: Test): Promise<{ g: GatewayStack; code: string; second: string; env: Record<string, string> }> {
  const g = await startGatewayStack(t)
  const aliceId = '870000000000000011'
  const bobId = '870000000000000012'
  const code = await g.codeFor(aliceId, 'alice')
  const second = await g.codeFor(bobId, 'bob')
  t.equal((await g.bind(code, 'Alice_R', 5151)).status, 200)
  t.equal((await g.bind(second, 'Bob_R', 5252)).status, 200)
  const env = {
    BASE_URL: g.stack.api,
    API_KEY: g.stack.apiKey,
    CONTROL_URL: `${g.sandbox.url}/control`,
    CODE: code,
    SECOND_CODE: second,
    USER_ID_DISCORD: aliceId,
    SECOND_USER_ID_DISCORD: bobId,
    PLAYERS: 'Alice_R:5151,Bob_R:5252',
  }
  return { g, code, second, env }
}

t.test('watch over the real SSE stream', async (t) => {
  const { g, code, second, env } = await setUp(t)
  const api = g.stack.api
  const out = await runLuauScenario('stream.lua', { ...env, STREAM: 'sse' })
  t.same(out.requests, [], 'nothing was polled: every block came through the stream')
  t.match(out.first, { code, marker: ';', username: 'Alice_R' })
  t.equal(out.modeAfterFirst, 'stream')
  t.same(out.changed.activities, [{ lines: ['Playing', 'Terraria'] }], 'the presence change made in the sandbox arrived')
  t.match(out.added, { code: second, marker: ';', username: 'Bob_R' })
  t.same(out.streams, [`${api}/stream/${code}`, `${api}/stream/${code}&${second}`, `${api}/stream/${second}`], 'reopened on add and on remove')
  t.same(out.afterRemove, [second], 'after remove, only the remaining code is delivered')
  t.equal(out.mode, 'stream')
  t.same(out.errors, [], 'no error was reported')
})

t.test('watch over the real WebSocket', async (t) => {
  const { g, code, second, env } = await setUp(t)
  const out = await runLuauScenario('stream.lua', { ...env, STREAM: 'websocket' })
  t.same(out.requests, [], 'nothing was polled: every block came through the WebSocket')
  t.match(out.first, { code, marker: ';', username: 'Alice_R' })
  t.equal(out.modeAfterFirst, 'stream')
  t.same(out.changed.activities, [{ lines: ['Playing', 'Terraria'] }], 'the presence change made in the sandbox arrived')
  t.match(out.added, { code: second, marker: ';', username: 'Bob_R' })
  t.same(out.streams, [`${g.stack.api.replace(/^http/, 'ws')}/ws`], 'one connection for the whole scenario')
  t.same(
    out.sent.map((m: string) => JSON.parse(m)),
    [
      { op: 'subscribe', codes: [code] },
      { op: 'subscribe', codes: [second] },
      { op: 'unsubscribe', codes: [code] },
    ],
    'add and remove (un)subscribe on the open connection',
  )
  t.same(out.afterRemove, [second], 'after remove, only the remaining code is delivered')
  t.equal(out.mode, 'stream')
  t.same(out.errors, [], 'no error was reported')
})

t.test('watch: a player who joins while the WebSocket is opening is subscribed when it opens', async (t) => {
  const { code, second, env } = await setUp(t)
  const out = await runLuauScenario('stream-opening.lua', env)
  t.match(out.first, { code, username: 'Alice_R' })
  t.match(out.second, { code: second, username: 'Bob_R' }, "the joining player's block arrived")
  t.same(out.changed.activities, [{ lines: ['Playing', 'Factorio'] }], "the joining player's presence change arrived")
  t.same(out.sent.map((m: string) => JSON.parse(m)), [{ op: 'subscribe', codes: [code, second] }], 'one subscribe with both codes')
  t.equal(out.polled, 0, 'nothing was polled')
})
