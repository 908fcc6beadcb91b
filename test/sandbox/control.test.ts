import { Client, Events, GatewayIntentBits, type Guild, type GuildMember, type PartialGuildMember } from 'discord.js'
import t from 'tap'
import { WebSocket } from 'ws'
import { DefaultIds } from '../../src/sandbox/world.js'
import { call, nextEvent, startClient, startSandbox } from './fixtures/harness.js'

const PLAYER = { id: '200000000000000001', username: 'player_one' }
const AUTH = { authorization: 'Bot sandbox-token' }

t.test('state', async (t) => {
  t.test('describes the default world with its fixed ids', async (t) => {
    const sandbox = await startSandbox(t)
    const state = await call<Record<string, unknown>>(sandbox, 'GET', '/control/state')
    t.same(state.body, {
      applicationId: DefaultIds.application,
      botUserId: DefaultIds.application,
      defaultGuildId: '100000000000000001',
      staffRoleId: DefaultIds.staffRole,
      url: sandbox.url,
      apiBase: sandbox.apiBase,
      robloxBase: sandbox.robloxBase,
      gatewayUrl: sandbox.gatewayUrl,
      guilds: [
        {
          id: '100000000000000001',
          name: 'Sandbox',
          shard: 0,
          staffRoleId: DefaultIds.staffRole,
          channels: [
            { id: DefaultIds.general, name: 'general' },
            { id: DefaultIds.serverLog, name: 'server-log' },
            { id: DefaultIds.ingameLog, name: 'ingame-log' },
            { id: DefaultIds.moderationLog, name: 'moderation-log' },
          ],
          roles: [
            { id: '100000000000000001', name: '@everyone' },
            { id: DefaultIds.staffRole, name: 'Staff' },
            { id: DefaultIds.botRole, name: 'Presence Link Sandbox' },
          ],
          memberCount: 1,
        },
      ],
      commands: { global: [], guild: {} },
      shards: [{ id: 0, connected: false, sessionId: null, seq: 0 }],
    })
  })

  t.test('whitelistedGuildId renames the default guild id', async (t) => {
    const sandbox = await startSandbox(t, { whitelistedGuildId: '900000000000000009' })
    t.equal(sandbox.defaultGuildId, '900000000000000009')
    const guild = await call<{ id: string; name: string }>(sandbox, 'GET', '/api/v10/guilds/900000000000000009', undefined, AUTH)
    t.equal(guild.body.name, 'Sandbox')
  })
})

t.test('guilds', async (t) => {
  t.test('a guild added with a shard gets an id routed to that shard', async (t) => {
    const sandbox = await startSandbox(t, { shardCount: 3 })
    for (const shard of [2, 0, 1, 2]) {
      const added = await call<{ id: string; shard: number; channels: Array<{ name: string }> }>(sandbox, 'POST', '/control/guilds', { name: `G${shard}`, shard })
      t.equal(added.body.shard, shard)
      t.equal(Number((BigInt(added.body.id) >> 22n) % 3n), shard)
      t.same(added.body.channels.map((c) => c.name), ['general', 'server-log', 'ingame-log', 'moderation-log'])
    }
    const bad = await call(sandbox, 'POST', '/control/guilds', { name: 'nope', shard: 3 })
    t.same(bad.body, { error: 'shard must be an integer in [0, 3)' })
    const dup = await call(sandbox, 'POST', '/control/guilds', { name: 'dup', id: '100000000000000001' })
    t.equal(dup.status, 409)
  })

  t.test('a guild added while connected arrives as guildCreate', async (t) => {
    const sandbox = await startSandbox(t)
    const client = await startClient(t, sandbox, { intents: [GatewayIntentBits.Guilds] })
    const created = nextEvent<[Guild]>(client, Events.GuildCreate)
    const added = await call<{ id: string; sent: number }>(sandbox, 'POST', '/control/guilds', { name: 'Late guild' })
    t.equal(added.body.sent, 1)
    const [guild] = await created
    t.equal(guild.id, added.body.id)
    t.equal(guild.name, 'Late guild')
    t.equal(guild.channels.cache.size, 4)
  })
})

t.test('members', async (t) => {
  t.test('add, update and remove dispatch GUILD_MEMBER_ADD, UPDATE and REMOVE', async (t) => {
    const sandbox = await startSandbox(t)
    const client = await startClient(t, sandbox, { intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers] })
    const added = nextEvent<[GuildMember]>(client, Events.GuildMemberAdd)
    await call(sandbox, 'POST', '/control/members', PLAYER)
    const [member] = await added
    t.equal(member.user.username, 'player_one')
    t.same([...member.roles.cache.keys()], [sandbox.defaultGuildId])

    const updated = nextEvent<[GuildMember | PartialGuildMember, GuildMember]>(client, Events.GuildMemberUpdate)
    const res = await call<{ created: boolean }>(sandbox, 'POST', '/control/members', { ...PLAYER, roles: [DefaultIds.staffRole] })
    t.equal(res.body.created, false)
    const [, after] = await updated
    t.ok(after.roles.cache.has(DefaultIds.staffRole))
    t.ok(after.permissions.has('KickMembers'))

    const removed = nextEvent<[GuildMember | PartialGuildMember]>(client, Events.GuildMemberRemove)
    const gone = await call(sandbox, 'DELETE', '/control/members', { id: PLAYER.id })
    t.same(gone.body, { sent: 1 })
    const [left] = await removed
    t.equal(left.id, PLAYER.id)
    const missing = await call(sandbox, 'GET', `/api/v10/guilds/${sandbox.defaultGuildId}/members/${PLAYER.id}`, undefined, AUTH)
    t.same(missing.body, { message: 'Unknown Member', code: 10007 })
  })

  t.test('REST member listing pages by id with limit and after', async (t) => {
    const sandbox = await startSandbox(t)
    const members = ['300000000000000003', '300000000000000001', '300000000000000002'].map((id, i) => ({ id, username: `m${i}` }))
    await call(sandbox, 'POST', '/control/members/bulk', { members })
    const page = await call<Array<{ user: { id: string } }>>(
      sandbox,
      'GET',
      `/api/v10/guilds/${sandbox.defaultGuildId}/members?limit=2&after=300000000000000001`,
      undefined,
      AUTH,
    )
    t.same(page.body.map((m) => m.user.id), ['300000000000000002', '300000000000000003'])
  })
})

t.test('dispatch', async (t) => {
  t.test('/control/dispatch sends a guild event to its shard and a guildless event to shard 0', async (t) => {
    const sandbox = await startSandbox(t, { shardCount: 2 })
    const second = await call<{ id: string }>(sandbox, 'POST', '/control/guilds', { name: 'Second', shard: 1 })
    const client = new Client({ intents: [GatewayIntentBits.Guilds], shards: [0, 1], shardCount: 2, rest: { api: sandbox.apiBase } })
    t.teardown(() => client.destroy())
    const ready = nextEvent(client, Events.ClientReady)
    await client.login('sandbox-token')
    await ready

    const renamed = nextEvent<[Guild, Guild]>(client, Events.GuildUpdate)
    const sent = await call(sandbox, 'POST', '/control/dispatch', { t: 'GUILD_UPDATE', d: { id: second.body.id, guild_id: second.body.id, name: 'Renamed' } })
    t.same(sent.body, { sent: 1, shards: [1] })
    const [, guild] = await renamed
    t.equal(guild.name, 'Renamed')

    const raw = nextEvent<[{ t: string; d: unknown }, number]>(client, Events.Raw, (packet) => packet.t === 'SANDBOX_PING')
    const ping = await call(sandbox, 'POST', '/control/dispatch', { t: 'SANDBOX_PING', d: { hello: 'world' } })
    t.same(ping.body, { sent: 1, shards: [0] })
    const [packet, shardId] = await raw
    t.same(packet.d, { hello: 'world' })
    t.equal(shardId, 0)
  })
})

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
