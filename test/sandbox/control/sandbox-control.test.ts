import t from 'tap'
import { DefaultIds } from '../../../src/sandbox/world.js'
import { call, startSandbox } from '../fixtures/harness.js'

const PLAYER = { id: '200000000000000001', username: 'player_one' }
const AUTH = { authorization: 'Bot sandbox-token' }

t.test('reset', async (t) => {
  t.test('clears members, messages, webhooks, counters and Roblox users but keeps guilds', async (t) => {
    const sandbox = await startSandbox(t)
    await call(sandbox, 'POST', '/control/guilds', { name: 'Kept' })
    await call(sandbox, 'POST', '/control/members', PLAYER)
    const hook = await call<{ id: string; token: string }>(sandbox, 'POST', '/control/webhooks', { channel_id: DefaultIds.serverLog })
    await call(sandbox, 'POST', `/api/v10/webhooks/${hook.body.id}/${hook.body.token}`, { content: 'before reset' })
    await call(sandbox, 'POST', '/control/roblox-users', { id: 156, name: 'builderman' })
    const done = await call(sandbox, 'POST', '/control/reset')
    t.same(done.body, { ok: true })
    const state = await call<{ guilds: Array<{ name: string; memberCount: number }> }>(sandbox, 'GET', '/control/state')
    t.same(state.body.guilds.map((g) => [g.name, g.memberCount]), [['Sandbox', 1], ['Kept', 1]])
    t.same((await call(sandbox, 'GET', '/control/messages')).body, [])
    t.same((await call(sandbox, 'GET', '/control/requests')).body, { total: 0, byRoute: {} })
    const lookup = await call(sandbox, 'POST', '/roblox/v1/usernames/users', { usernames: ['builderman'] })
    t.same(lookup.body, { data: [] })
    const oldHook = await call(sandbox, 'POST', `/api/v10/webhooks/${hook.body.id}/${hook.body.token}`, { content: 'after reset' })
    t.equal(oldHook.status, 404)
    const player = await call(sandbox, 'GET', `/api/v10/users/${PLAYER.id}`, undefined, AUTH)
    t.same(player.body, { message: 'Unknown User', code: 10013 })
  })
})
