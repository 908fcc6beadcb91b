import { Events, GatewayIntentBits, type Guild } from 'discord.js'
import t from 'tap'
import { DefaultIds } from '../../../src/sandbox/world.js'
import { call, nextEvent, startClient, startSandbox } from '../fixtures/harness.js'

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
