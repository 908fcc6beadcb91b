import { Events, GatewayIntentBits, type Message, type Presence } from 'discord.js'
import t from 'tap'
import { WebSocket } from 'ws'
import { DefaultIds } from '../../../src/sandbox/world.js'
import { call, nextEvent, startClient, startSandbox } from '../fixtures/harness.js'

const PLAYER = { id: '200000000000000001', username: 'player_one' }
const ROBLOX_ACTIVITY = { name: 'Roblox', type: 0, details: 'Playing Jailbreak', state: 'In a server' }

interface ShardView {
  id: number
  connected: boolean
  sessionId: string | null
  seq: number
}
interface StateView {
  guilds: Array<{ id: string; name: string; shard: number; channels: Array<{ id: string; name: string }> }>
  shards: ShardView[]
}

t.test('login', async (t) => {
  t.test('READY and GUILD_CREATE bring the default guild with its four channels', async (t) => {
    const sandbox = await startSandbox(t)
    const client = await startClient(t, sandbox, { intents: [GatewayIntentBits.Guilds], waitGuildTimeout: 1000 })
    t.equal(client.user.id, DefaultIds.application)
    t.equal(client.application.id, DefaultIds.application)
    const guild = client.guilds.cache.get(sandbox.defaultGuildId)
    t.ok(guild?.available, 'the guild arrived through GUILD_CREATE')
    t.equal(guild?.name, 'Sandbox')
    t.same(
      guild?.channels.cache.map((c) => [c.id, c.name]).sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? '')),
      [
        [DefaultIds.general, 'general'],
        [DefaultIds.serverLog, 'server-log'],
        [DefaultIds.ingameLog, 'ingame-log'],
        [DefaultIds.moderationLog, 'moderation-log'],
      ],
    )
    t.same(guild?.roles.cache.map((r) => r.name).sort(), ['@everyone', 'Presence Link Sandbox', 'Staff'])
    const state = await call<StateView>(sandbox, 'GET', '/control/state')
    t.equal(state.body.shards.length, 1)
    t.equal(state.body.shards[0]?.connected, true)
    t.equal(state.body.shards[0]?.seq, 2, 'READY then one GUILD_CREATE')
    t.match(state.body.shards[0]?.sessionId, /^[0-9a-f]{32}$/)
  })

  t.test('a wrong token is refused on REST with 401 and on the gateway with close 4004', async (t) => {
    const sandbox = await startSandbox(t, { botToken: 'right-token' })
    const rest = await call(sandbox, 'GET', '/api/v10/users/@me', undefined, { authorization: 'Bot wrong-token' })
    t.equal(rest.status, 401)
    t.same(rest.body, { message: '401: Unauthorized', code: 0 })
    const ok = await call<{ id: string }>(sandbox, 'GET', '/api/v10/users/@me', undefined, { authorization: 'Bot right-token' })
    t.equal(ok.body.id, DefaultIds.application)

    const socket = new WebSocket(`${sandbox.gatewayUrl}/?v=10&encoding=json`)
    t.teardown(() => socket.terminate())
    const frames: Array<{ op: number; d: unknown }> = []
    socket.on('message', (data) => frames.push(JSON.parse(data.toString()) as { op: number; d: unknown }))
    await nextEvent(socket, 'open')
    await new Promise((resolve) => setTimeout(resolve, 50))
    t.same(frames[0], { op: 10, d: { heartbeat_interval: 41250, _trace: ['["presence-link-sandbox",{"micros":0}]'] }, s: null, t: null })
    const closed = nextEvent<[number, Buffer]>(socket, 'close')
    socket.send(JSON.stringify({ op: 2, d: { token: 'wrong-token', intents: 1, properties: {}, shard: [0, 1] } }))
    const [code] = await closed
    t.equal(code, 4004)
  })
})

t.test('presence', async (t) => {
  t.test('a PRESENCE_UPDATE from /control/presence reaches presenceUpdate with the activities', async (t) => {
    const sandbox = await startSandbox(t)
    const client = await startClient(t, sandbox, {
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers, GatewayIntentBits.GuildPresences],
    })
    const added = nextEvent(client, Events.GuildMemberAdd)
    const member = await call<{ created: boolean; sent: number }>(sandbox, 'POST', '/control/members', PLAYER)
    t.same(member.body.created, true)
    t.equal(member.body.sent, 1)
    await added
    const update = nextEvent<[Presence | null, Presence]>(client, Events.PresenceUpdate)
    const sent = await call(sandbox, 'POST', '/control/presence', { user_id: PLAYER.id, status: 'online', activities: [ROBLOX_ACTIVITY] })
    t.same(sent.body, { sent: 1, shards: [0] })
    const [, presence] = await update
    t.equal(presence.userId, PLAYER.id)
    t.equal(presence.guild?.id, sandbox.defaultGuildId)
    t.equal(presence.status, 'online')
    t.same(presence.clientStatus, { desktop: 'online' })
    t.equal(presence.activities.length, 1)
    t.equal(presence.activities[0]?.name, 'Roblox')
    t.equal(presence.activities[0]?.details, 'Playing Jailbreak')
    t.equal(presence.activities[0]?.state, 'In a server')
  })

  t.test('invisible is seen as offline with no activities', async (t) => {
    const sandbox = await startSandbox(t)
    const client = await startClient(t, sandbox, {
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers, GatewayIntentBits.GuildPresences],
    })
    await call(sandbox, 'POST', '/control/members', PLAYER)
    const update = nextEvent<[Presence | null, Presence]>(client, Events.PresenceUpdate)
    await call(sandbox, 'POST', '/control/presence', { user_id: PLAYER.id, status: 'invisible', activities: [ROBLOX_ACTIVITY] })
    const [, presence] = await update
    t.equal(presence.status, 'offline')
    t.same(presence.activities, [])
  })

  t.test('a client without the GuildPresences intent gets no PRESENCE_UPDATE', async (t) => {
    const sandbox = await startSandbox(t)
    await startClient(t, sandbox, { intents: [GatewayIntentBits.Guilds] })
    await call(sandbox, 'POST', '/control/members', PLAYER)
    const sent = await call(sandbox, 'POST', '/control/presence', { user_id: PLAYER.id, status: 'online', activities: [] })
    t.same(sent.body, { sent: 0, shards: [] })
  })
})

t.test('reconnects', async (t) => {
  t.test('close 4000 makes the client RESUME, the missed presence is replayed and presence still flows', async (t) => {
    const sandbox = await startSandbox(t)
    const client = await startClient(t, sandbox, {
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers, GatewayIntentBits.GuildPresences],
    })
    await call(sandbox, 'POST', '/control/members', PLAYER)
    const before = await call<StateView>(sandbox, 'GET', '/control/state')
    const resumed = nextEvent<[number, number]>(client, Events.ShardResume)
    const replayed = nextEvent<[Presence | null, Presence]>(client, Events.PresenceUpdate, (_old, p) => p.status === 'idle')
    const closed = await call(sandbox, 'POST', '/control/disconnect', { shard: 0, code: 4000 })
    t.same(closed.body, { ended: 1 })
    const missed = await call(sandbox, 'POST', '/control/presence', { user_id: PLAYER.id, status: 'idle', activities: [] })
    t.same(missed.body, { sent: 1, shards: [0] }, 'buffered for the disconnected session')
    const [shardId] = await resumed
    t.equal(shardId, 0)
    const [, idle] = await replayed
    t.equal(idle.status, 'idle')
    const after = await call<StateView>(sandbox, 'GET', '/control/state')
    t.equal(after.body.shards[0]?.sessionId, before.body.shards[0]?.sessionId, 'same session after RESUME')
    t.equal(after.body.shards[0]?.connected, true)
    const update = nextEvent<[Presence | null, Presence]>(client, Events.PresenceUpdate, (_old, p) => p.status === 'dnd')
    await call(sandbox, 'POST', '/control/presence', { user_id: PLAYER.id, status: 'dnd', activities: [ROBLOX_ACTIVITY] })
    const [, dnd] = await update
    t.equal(dnd.activities[0]?.name, 'Roblox')
  })

  t.test('an invalidated session makes the client IDENTIFY again with a new session', async (t) => {
    const sandbox = await startSandbox(t)
    const client = await startClient(t, sandbox, { intents: [GatewayIntentBits.Guilds] })
    const before = await call<StateView>(sandbox, 'GET', '/control/state')
    // discord.js waits out Discord's 5 s identify window before identifying again.
    const ready = nextEvent<[number]>(client, Events.ShardReady, () => true, 15_000)
    const ended = await call(sandbox, 'POST', '/control/disconnect', { shard: 0, invalidate: true })
    t.same(ended.body, { ended: 1 })
    const [shardId] = await ready
    t.equal(shardId, 0)
    const after = await call<StateView>(sandbox, 'GET', '/control/state')
    t.not(after.body.shards[0]?.sessionId, before.body.shards[0]?.sessionId)
    t.equal(after.body.shards[0]?.connected, true)
  })
})

t.test('sharding', async (t) => {
  t.test('two shards each get only their guilds and a presence in a shard-1 guild reaches the client', async (t) => {
    const sandbox = await startSandbox(t, { shardCount: 2 })
    const second = await call<{ id: string; shard: number }>(sandbox, 'POST', '/control/guilds', { name: 'Second', shard: 1 })
    t.equal(second.body.shard, 1)
    t.equal(Number((BigInt(second.body.id) >> 22n) % 2n), 1)
    const gateway = await call<{ shards: number; url: string }>(sandbox, 'GET', '/api/v10/gateway/bot', undefined, { authorization: 'Bot x' })
    t.equal(gateway.body.shards, 2)
    t.equal(gateway.body.url, sandbox.gatewayUrl)

    const readyGuilds = new Map<number, string[]>()
    const client = await (async () => {
      const { Client } = await import('discord.js')
      const c = new Client({
        intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers, GatewayIntentBits.GuildPresences],
        shards: [0, 1],
        shardCount: 2,
        rest: { api: sandbox.apiBase },
      })
      t.teardown(() => c.destroy())
      c.on(Events.Raw, (packet: { t: string; d: { guilds?: Array<{ id: string }> } }, shardId: number) => {
        if (packet.t === 'READY') readyGuilds.set(shardId, (packet.d.guilds ?? []).map((g) => g.id))
      })
      const ready = nextEvent(c, Events.ClientReady)
      await c.login('sandbox-token')
      await ready
      return c
    })()
    t.same(readyGuilds.get(0), [sandbox.defaultGuildId])
    t.same(readyGuilds.get(1), [second.body.id])
    t.equal(client.guilds.cache.get(sandbox.defaultGuildId)?.shardId, 0)
    t.equal(client.guilds.cache.get(second.body.id)?.shardId, 1)
    const state = await call<StateView>(sandbox, 'GET', '/control/state')
    t.same(state.body.shards.map((s) => [s.id, s.connected]), [[0, true], [1, true]])

    await call(sandbox, 'POST', '/control/members', { ...PLAYER, guild_id: second.body.id })
    const update = nextEvent<[Presence | null, Presence]>(client, Events.PresenceUpdate)
    const sent = await call(sandbox, 'POST', '/control/presence', { user_id: PLAYER.id, status: 'online', activities: [ROBLOX_ACTIVITY] })
    t.same(sent.body, { sent: 1, shards: [1] })
    const [, presence] = await update
    t.equal(presence.guild?.id, second.body.id)
    t.equal(presence.guild?.shardId, 1)
    t.equal(presence.activities[0]?.state, 'In a server')
  })
})

t.test('member chunks', async (t) => {
  t.test('members.fetch with presences returns all 3,000 members of a bulk-loaded large guild', async (t) => {
    const sandbox = await startSandbox(t)
    const members = Array.from({ length: 3000 }, (_, i) => ({ id: String(300000000000000000n + BigInt(i)), username: `member_${i}` }))
    const presences = members.slice(0, 10).map((m) => ({ user_id: m.id, status: 'online', activities: [ROBLOX_ACTIVITY] }))
    const bulk = await call(sandbox, 'POST', '/control/members/bulk', { members, presences })
    t.same(bulk.body, { added: 3000, updated: 0, total: 3001, presences: 10 })
    const client = await startClient(t, sandbox, {
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers, GatewayIntentBits.GuildPresences],
    })
    const guild = client.guilds.cache.get(sandbox.defaultGuildId)
    if (!guild) throw new Error('default guild missing')
    t.equal(guild.large, true)
    t.equal(guild.memberCount, 3001)
    t.equal(guild.members.cache.size, 1, 'a large GUILD_CREATE carries only the bot')
    const chunks: number[] = []
    client.on(Events.GuildMembersChunk, (chunkMembers) => chunks.push(chunkMembers.size))
    const fetched = await guild.members.fetch({ withPresences: true })
    t.equal(fetched.size, 3001)
    t.equal(fetched.filter((m) => !m.user.bot).size, 3000)
    t.equal(fetched.get(members[2999]?.id ?? '')?.user.username, 'member_2999')
    t.same(chunks, [1000, 1000, 1000, 1])
    t.equal(guild.presences.cache.size, 10)
    t.equal(guild.presences.cache.get(members[0]?.id ?? '')?.activities[0]?.name, 'Roblox')
  })
})

t.test('message content', async (t) => {
  t.test('MESSAGE_CREATE content is blank without the MessageContent intent and present with it', async (t) => {
    const sandbox = await startSandbox(t)
    await call(sandbox, 'POST', '/control/members', PLAYER)
    const blind = await startClient(t, sandbox, { intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages] })
    const reader = await startClient(t, sandbox, {
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
    })
    const blindGot = nextEvent<[Message]>(blind, Events.MessageCreate)
    const readerGot = nextEvent<[Message]>(reader, Events.MessageCreate)
    const posted = await call<{ id: string; content: string }>(sandbox, 'POST', '/control/messages', {
      channel_id: DefaultIds.general,
      author_id: PLAYER.id,
      content: 'hello from roblox',
    })
    t.equal(posted.body.content, 'hello from roblox')
    const [blindMessage] = await blindGot
    const [readerMessage] = await readerGot
    t.equal(blindMessage.id, posted.body.id)
    t.equal(blindMessage.content, '')
    t.equal(blindMessage.author.username, PLAYER.username)
    t.equal(readerMessage.content, 'hello from roblox')
  })

  t.test('a message that mentions the bot keeps its content without the intent', async (t) => {
    const sandbox = await startSandbox(t)
    await call(sandbox, 'POST', '/control/members', PLAYER)
    const blind = await startClient(t, sandbox, { intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages] })
    const got = nextEvent<[Message]>(blind, Events.MessageCreate)
    await call(sandbox, 'POST', '/control/messages', {
      channel_id: DefaultIds.general,
      author_id: PLAYER.id,
      content: `<@${sandbox.botUserId}> link me`,
    })
    const [message] = await got
    t.equal(message.content, `<@${sandbox.botUserId}> link me`)
  })
})
