import { Client, Events, GatewayIntentBits, type Guild } from 'discord.js'
import t from 'tap'
import { call, nextEvent, startSandbox } from '../fixtures/harness.js'

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
