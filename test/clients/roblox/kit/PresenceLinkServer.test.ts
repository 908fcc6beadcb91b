/**
 * The kit's example server Script (clients/roblox/kit/PresenceLinkServer.server.lua), run by lua5.1 as the engine
 * runs it (test/clients/roblox/kit.lua: a small stand-in for game, its services, Instance.new, script, task and warn)
 * against the real service and the Discord sandbox: a returning player gets their code back and their activity shown,
 * a new player links by typing their code into the RemoteEvent, their text is filtered, malformed input is ignored.
 */
import t from 'tap'
import { startGatewayStack } from '../../../helpers/gateway-stack.js'
import { runLuaScenario } from '../../../helpers/lua-scenario.js'

t.test('the kit server script against the real service', async (t) => {
  const g = await startGatewayStack(t)
  const aliceId = '870000000000000021'
  const bobId = '870000000000000022'
  const { code } = await g.linkedUser(aliceId, 'alice', 'Alice_R', 6161)
  const newCode = await g.codeFor(bobId, 'bob')
  await g.control('POST', 'presence', { user_id: aliceId, status: 'online', activities: [{ type: 0, name: 'Terraria' }] })
  await g.control('POST', 'presence', { user_id: bobId, status: 'online', activities: [{ type: 0, name: 'Badword Arena' }] })
  await g.callbacksUntil(code, (body) => body.includes('Terraria'), "alice's presence")
  const env = { BASE_URL: g.stack.api, API_KEY: g.stack.apiKey, RETURNING_NAME: 'Alice_R', RETURNING_ID: '6161', NEW_NAME: 'Bob_R', NEW_ID: '6262', NEW_CODE: newCode }
  const out = await runLuaScenario('kit.lua', env)

  t.same(out.returning, ['Playing · Terraria'], "the returning player's code came back from codeFor, their activity shown")
  t.same(out.newcomer, ['Playing · ####### Arena'], "the new player's activity, filtered")
  t.equal(out.firedBeforeCode, 0, 'a number and a 40-character text were ignored')
  t.same(out.fired, [{ player: 'Bob_R', ok: true, message: 'Linked! Your Discord activity now shows in this game.' }], 'the answer sentence went back to the player')
  t.equal((await g.stack.codes.show(newCode))?.platformUserId, '6262', 'bound to the player who typed it')
  t.ok(out.remoteIn, 'the RemoteEvent LinkCode is in ReplicatedStorage')
  t.equal(out.boundToClose, 1, "the script's one PresenceLink bound its log queue to game:BindToClose")
  t.ok(out.requests.includes(`GET ${g.stack.api}/players/6161`) && out.requests.includes(`GET ${g.stack.api}/players/6262`), 'codeFor asked for both players')
  t.same(out.warnings.filter((w: string) => !/watch polls every pollInterval/.test(w)), [], 'no warning but why push is not used')
})

t.test('the kit server script outside ServerScriptService only says where it belongs', async (t) => {
  const out = await runLuaScenario('kit.lua', { PLACEMENT: 'workspace', BASE_URL: 'http://127.0.0.1:9/api/v1', API_KEY: 'x', RETURNING_NAME: 'A', RETURNING_ID: '1' })
  t.equal(out.remote, false, 'no RemoteEvent')
  t.equal(out.warnings.length, 1)
  t.match(out.warnings[0], /move PresenceLinkServer and PresenceLink into ServerScriptService/)
})
