/**
 * Returning players: the Roblox module's `link:codeFor(player)` (GET /api/v1/players/{platform_user_id}) under Luau
 * with the engine stand-ins of test/clients/roblox/harness.lua, against the real service and the Discord sandbox: the
 * code bound last, a paused code, none for a banned-only or unknown player, an error for what is no player, a refused
 * key; and the found code's text filtered from that player although rpc blocks carry no username.
 */
import t from 'tap'
import { startGatewayStack } from '../../helpers/gateway-stack.js'
import { runLuauScenario } from '../../helpers/luau-scenario.js'

t.test('against the real service and the Discord sandbox', async (t) => {
  const g = await startGatewayStack(t)
  const api = g.stack.api
  const env = { BASE_URL: api, API_KEY: g.stack.apiKey, CONTROL_URL: `${g.sandbox.url}/control` }

  t.test('codeFor: a returning player finds their code by Roblox user id', async (t) => {
    // Two Discord accounts linked to one Roblox account: the code bound last is the one to show.
    const older = (await g.linkedUser('870000000000000009', 'returner1', 'Returner_R', 4848)).code
    const newer = (await g.linkedUser('870000000000000010', 'returner2', 'Returner_R', 4848)).code
    await g.control('POST', 'presence', { user_id: '870000000000000010', status: 'online', activities: [{ type: 0, name: 'Badword Derby' }] })
    await g.callbacksUntil(newer, (body) => body.includes('Badword Derby'), "the returning player's presence")
    const pausedCode = (await g.linkedUser('870000000000000007', 'paused', 'Paused_P', 4646)).code
    t.ok((await g.stack.codes.act(pausedCode, 'pause', { source: 'test' })).ok)
    const bannedCode = (await g.linkedUser('870000000000000008', 'banned2', 'Banned_P', 4747)).code
    t.ok((await g.stack.codes.act(bannedCode, 'ban', { source: 'test' })).ok)
    const returner = { USERNAME: 'Returner_R', USER_ID: '4848', PLAYERS: 'Returner_R:4848' }
    const out = await runLuauScenario('returning.lua', { ...env, ...returner, PAUSED_ID: '4646', BANNED_ID: '4747', UNKNOWN_ID: '99999999' })
    t.equal(out.returning.code, newer, 'the code bound last')
    t.match(out.returning.result, {
      ok: true,
      httpStatus: 200,
      status: 'bound',
      codes: [
        { code: newer, status: 'bound', platform_username: 'Returner_R' },
        { code: older, status: 'bound', platform_username: 'Returner_R' },
      ],
    })
    t.equal(out.returning.url, `${api}/players/4848`)
    t.equal(out.returning.authorization, `Bearer ${g.stack.apiKey}`)
    t.same(out.rpc, [{ code: newer, activities: [{ lines: ['Playing', '####### Derby'] }] }], "rpc has no username: the text is filtered from the player codeFor learnt")
    t.equal(out.paused.code, pausedCode, 'a paused code is still theirs')
    t.match(out.paused.result, { ok: true, status: 'paused' })
    t.equal(out.banned.code, undefined, 'a banned code is not offered')
    t.match(out.banned.result, { ok: true, status: 'none', codes: [{ code: bannedCode, status: 'banned' }] })
    t.equal(out.unknown.code, undefined)
    t.match(out.unknown.result, { ok: true, status: 'none' })
    t.same(Array.isArray(out.unknown.result.codes) ? out.unknown.result.codes : Object.values(out.unknown.result.codes), [], 'an unknown player has no codes')
    t.match(out.notAPlayer, { result: { ok: false, errorCode: 'invalid_player' }, sent: 0 })
    t.match(out.badKey.result, { ok: false, httpStatus: 401, errorCode: 'unauthorized' })
  })
})
