import { Events, GatewayIntentBits } from 'discord.js'
import t from 'tap'
import { WebSocket } from 'ws'
import { DefaultIds } from '../../../src/sandbox/world.js'
import { call, nextEvent, startClient, startSandbox } from '../fixtures/harness.js'

const PLAYER = { id: '200000000000000001', username: 'player_one' }
const AUTH = { authorization: 'Bot sandbox-token' }

t.test('REST conventions', async (t) => {
  t.test('rate-limit headers count down and the request past the limit gets a Discord 429', async (t) => {
    const sandbox = await startSandbox(t, { rateLimitPerSecond: 2 })
    const path = `/api/v10/channels/${DefaultIds.general}`
    const first = await call(sandbox, 'GET', path, undefined, AUTH)
    t.equal(first.headers.get('x-ratelimit-limit'), '2')
    t.equal(first.headers.get('x-ratelimit-remaining'), '1')
    t.match(first.headers.get('x-ratelimit-bucket'), /^[0-9a-f]{32}$/)
    t.match(first.headers.get('x-ratelimit-reset-after'), /^\d+\.\d{3}$/)
    await call(sandbox, 'GET', path, undefined, AUTH)
    const limited = await call<{ message: string; retry_after: number; global: boolean }>(sandbox, 'GET', path, undefined, AUTH)
    t.equal(limited.status, 429)
    t.equal(limited.body.message, 'You are being rate limited.')
    t.equal(limited.body.global, false)
    t.ok(limited.body.retry_after > 0 && limited.body.retry_after <= 1)
    t.equal(limited.headers.get('retry-after'), String(limited.body.retry_after))
    const other = await call(sandbox, 'GET', `/api/v10/channels/${DefaultIds.serverLog}`, undefined, AUTH)
    t.equal(other.status, 200, 'another channel is another bucket')
    const counts = await call<{ byRoute: Record<string, number> }>(sandbox, 'GET', '/control/requests')
    t.same(counts.body.byRoute, { 'GET /channels/:id 200': 3, 'GET /channels/:id 429': 1 })
  })

  t.test('unknown things answer Discord error codes', async (t) => {
    const sandbox = await startSandbox(t)
    const cases: Array<[string, string, unknown]> = [
      ['GET', '/api/v10/nothing/here', { message: 'Unknown route', code: 0 }],
      ['GET', '/api/v10/channels/1', { message: 'Unknown Channel', code: 10003 }],
      ['GET', `/api/v10/channels/${DefaultIds.general}/messages/1`, { message: 'Unknown Message', code: 10008 }],
      ['GET', `/api/v10/guilds/${DefaultIds.guild}/members/1`, { message: 'Unknown Member', code: 10007 }],
      ['GET', '/api/v9/guilds/1', { message: 'Unknown Guild', code: 10004 }],
      ['POST', '/api/v10/webhooks/1/token', { message: 'Unknown Webhook', code: 10015 }],
    ]
    for (const [method, path, body] of cases) {
      const res = await call(sandbox, method, path, undefined, AUTH)
      t.equal(res.status, 404, `${method} ${path}`)
      t.same(res.body, body, `${method} ${path}`)
    }
  })

  t.test('answered interactions are listed and an unknown interaction is 10062', async (t) => {
    const sandbox = await startSandbox(t)
    const client = await startClient(t, sandbox, { intents: [GatewayIntentBits.Guilds] })
    await call(sandbox, 'POST', '/control/members', PLAYER)
    client.on(Events.InteractionCreate, (interaction) => {
      if (interaction.isChatInputCommand()) void interaction.reply({ content: 'pong' })
    })
    const reply = await call<{ type: number; content: string; flags: number }>(sandbox, 'POST', '/control/commands', { user_id: PLAYER.id, name: 'ping' })
    t.match(reply.body, { type: 4, content: 'pong', flags: 0 })
    const listed = await call<Array<{ callback_type: number; final: { content: string } }>>(sandbox, 'GET', '/control/interactions')
    t.match(listed.body, [{ callback_type: 4, final: { content: 'pong' } }])
    const again = await call(sandbox, 'POST', `/api/v10/interactions/1/x/callback`, { type: 4, data: { content: 'late' } })
    t.same(again.body, { message: 'Unknown interaction', code: 10062 })
  })

  t.test('a raw gateway client sees INTERACTION_CREATE and its 204 callback carries no content type', async (t) => {
    const sandbox = await startSandbox(t)
    await call(sandbox, 'POST', '/control/members', PLAYER)
    const socket = new WebSocket(`${sandbox.gatewayUrl}?v=10&encoding=json`)
    t.teardown(() => socket.terminate())
    const dispatches: Array<{ t: string; s: number; d: Record<string, unknown> }> = []
    const interaction = new Promise<Record<string, unknown>>((resolve) => {
      socket.on('message', (data) => {
        const frame = JSON.parse(data.toString()) as { op: number; t: string; s: number; d: Record<string, unknown> }
        if (frame.op !== 0) return
        dispatches.push(frame)
        if (frame.t === 'INTERACTION_CREATE') resolve(frame.d)
      })
    })
    await nextEvent(socket, 'open')
    socket.send(JSON.stringify({ op: 2, d: { token: 'sandbox-token', intents: 1, properties: {}, shard: [0, 1] } }))
    const pending = call<{ type: number; content: string }>(sandbox, 'POST', '/control/commands', { user_id: PLAYER.id, name: 'ping' })
    const d = await interaction
    t.same(dispatches.map((f) => [f.t, f.s]), [['READY', 1], ['GUILD_CREATE', 2], ['INTERACTION_CREATE', 3]])
    t.match(d, {
      type: 2,
      application_id: sandbox.applicationId,
      guild_id: sandbox.defaultGuildId,
      channel_id: DefaultIds.general,
      data: { name: 'ping', type: 1 },
      member: { user: { id: PLAYER.id, username: 'player_one', discriminator: '0', bot: false }, roles: [] },
      version: 1,
      locale: 'en-US',
      entitlements: [],
      authorizing_integration_owners: {},
      context: 0,
    })
    const callback = await fetch(`${sandbox.apiBase}/v10/interactions/${String(d.id)}/${String(d.token)}/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 4, data: { content: 'raw pong' } }),
    })
    t.equal(callback.status, 204)
    t.equal(callback.headers.get('content-type'), null)
    t.match((await pending).body, { type: 4, content: 'raw pong' })
    const twice = await call(sandbox, 'POST', `/api/v10/interactions/${String(d.id)}/${String(d.token)}/callback`, { type: 4, data: { content: 'again' } })
    t.same(twice.body, { message: 'Interaction has already been acknowledged.', code: 40060 })
  })
})
