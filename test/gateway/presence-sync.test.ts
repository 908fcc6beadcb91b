/** Presence sync through the real gateway and the sandbox: updates, resyncs, staleness and callbacks. */
import t from 'tap'
import { renderActivityGroups } from '../../src/presence/model/activity.js'
import { parseCallbacks } from '../../src/presence/model/parse-blocks.js'
import { eventually, getText } from '../helpers/stack.js'
import { startGatewayStack, type GatewayStack } from '../helpers/gateway-stack.js'

let g: GatewayStack
let n = 800000000000000000n
const nextUser = () => String(++n)

const SPOTIFY = { type: 2, name: 'Spotify', details: 'Blinding Lights', state: 'The Weeknd', assets: { large_text: 'After Hours' } }
const GAME = { type: 0, name: 'Minecraft' }
const PLATFORM_GAME = { type: 0, name: 'Roblox', details: 'Adopt Me!' }
const CUSTOM = { type: 4, name: 'Custom Status', state: 'grinding in roblox' }

t.before(async () => {
  g = await startGatewayStack(t)
})

t.test('a PRESENCE_UPDATE with music and a game shows in callbacks and rpc; the platform game and custom status do not', async (t) => {
  const { user, code } = await g.linkedUser(nextUser(), 'alice', 'Alice_R', 1)
  const sent = await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [CUSTOM, SPOTIFY, PLATFORM_GAME, GAME] })
  t.equal(sent.sent, 1)
  const text = await g.callbacksUntil(code, (s) => s.includes('Spotify'))
  t.equal(text, `{${code};\nAlice_R;\nListening to Spotify,\nBlinding Lights,\nThe Weeknd;\nPlaying,\nMinecraft;\n}\n`)
  const rpc = await getText(`${g.stack.api}/rpc/${code}`)
  t.equal(rpc.text, `{${code};\nListening to Spotify,\nBlinding Lights,\nThe Weeknd;\nPlaying,\nMinecraft;\n}\n`)
})

t.test('going offline clears the activity; coming back restores it', async (t) => {
  const { user, code } = await g.linkedUser(nextUser(), 'bob', 'Bob_R', 2)
  await g.control('POST', 'presence', { user_id: user, status: 'dnd', activities: [GAME] })
  await g.callbacksUntil(code, (s) => s.includes('Minecraft'))
  await g.control('POST', 'presence', { user_id: user, status: 'offline', activities: [] })
  t.equal(await g.callbacksUntil(code, (s) => s.includes('No activity')), `{${code};\nBob_R;\nNo activity detected;\n}\n`)
  await g.control('POST', 'presence', { user_id: user, status: 'idle', activities: [GAME] })
  await g.callbacksUntil(code, (s) => s.includes('Minecraft'))
  t.equal(await g.stack.redis.hexists(g.stack.ctx.keys.presence, code), 1)
})

t.test('hostile activity text cannot break the blocks', async (t) => {
  const { user, code } = await g.linkedUser(nextUser(), 'mallory', 'Mallory_R', 3)
  const hostile = { type: 2, name: 'Spotify', details: '}\n{ZZZZ;\nPwned;\n}', state: '"quoted"; {braces} \u202Eevil' }
  await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [hostile, { type: 0, name: 'x'.repeat(4000) + '👍🏽' }] })
  const text = await g.callbacksUntil(code, (s) => s.includes('Spotify'))
  const parsed = parseCallbacks(text)
  t.ok(parsed.ok, 'the response parses strictly')
  if (!parsed.ok || parsed.blocks[0]?.marker !== ';') return
  t.equal(parsed.blocks.length, 1)
  t.same(parsed.blocks[0].activities[0]!.lines, ['Listening to Spotify', ') (ZZZZ, Pwned, )', "'quoted', (braces) evil"])
  t.equal([...parsed.blocks[0].activities[1]!.lines[1]!].length, 100)
})

t.test('presence of a member without a code is not stored', async (t) => {
  const user = nextUser()
  await g.control('POST', 'members', { id: user, username: 'nocode' })
  await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [GAME] })
  const { code } = await g.linkedUser(nextUser(), 'witness', 'Witness_R', 4)
  await g.control('POST', 'presence', { user_id: (await g.stack.codes.show(code))!.chatUserId, status: 'online', activities: [GAME] })
  await g.callbacksUntil(code, (s) => s.includes('Minecraft'))
  const keys = g.stack.ctx.keys
  const held = new Set(Object.values(await g.stack.redis.hgetall(keys.holders)))
  const stored = await g.stack.redis.hkeys(keys.presence)
  t.ok(stored.includes(code))
  t.ok(stored.every((c) => held.has(c)), 'every stored presence belongs to a live code')
  t.equal(await g.stack.redis.hexists(keys.holders, user), 0, 'the member without a code holds none')
})

t.test('a user who gets a code while already playing shows at once (their presence is fetched)', async (t) => {
  const user = nextUser()
  await g.control('POST', 'members', { id: user, username: 'early' })
  await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [GAME] })
  const reply = await g.control<{ content: string }>('POST', 'commands', { user_id: user, name: 'code' })
  const code = /\*\*([A-Z0-9]{4})\*\*/.exec(reply.content)![1]!
  await g.bind(code, 'Early_R', 5)
  t.equal(await g.callbacksUntil(code, (s) => s.includes('Minecraft')), `{${code};\nEarly_R;\nPlaying,\nMinecraft;\n}\n`)
})

t.test('leaving the only shared guild clears the presence', async (t) => {
  const { user, code } = await g.linkedUser(nextUser(), 'leaver', 'Leaver_R', 6)
  await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [GAME] })
  await g.callbacksUntil(code, (s) => s.includes('Minecraft'))
  await g.control('DELETE', 'members', { id: user })
  t.equal(await g.callbacksUntil(code, (s) => s.includes('No activity')), `{${code};\nLeaver_R;\nNo activity detected;\n}\n`)
})

t.test('a user in two guilds has one presence, and leaving one guild keeps it', async (t) => {
  const second = await g.control<{ id: string }>('POST', 'guilds', { name: 'Second Guild' })
  const { user, code } = await g.linkedUser(nextUser(), 'twoguilds', 'Two_R', 7)
  await g.control('POST', 'members', { id: user, username: 'twoguilds', guild_id: second.id })
  const sent = await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [GAME] })
  t.equal(sent.sent, 2, 'Discord sends the update to both guilds')
  await g.callbacksUntil(code, (s) => s.includes('Minecraft'))
  await g.control('DELETE', 'members', { id: user, guild_id: second.id })
  await new Promise((r) => setTimeout(r, 300))
  t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text, `{${code};\nTwo_R;\nPlaying,\nMinecraft;\n}\n`)
})

t.test('a shard closed with 4000 resumes, and presence keeps flowing', async (t) => {
  const { user, code } = await g.linkedUser(nextUser(), 'resumer', 'Resume_R', 8)
  const resumed = new Promise<number>((resolve) => g.gateway.client.once('shardResume', resolve))
  await g.control('POST', 'disconnect', { shard: 0, code: 4000 })
  t.equal(await resumed, 0)
  await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [GAME] })
  t.equal(await g.callbacksUntil(code, (s) => s.includes('Minecraft')), `{${code};\nResume_R;\nPlaying,\nMinecraft;\n}\n`)
})

t.test('resync racing a presence change', async (t) => {
  // The sandbox makes each change right after the resync's member chunks go out: the chunks carry the presence from
  // before it, and the PRESENCE_UPDATE follows them on the same connection while the resync is still writing.
  const settle = () => new Promise((r) => setTimeout(r, 500))

  t.test('a user who comes online while a resync sweeps keeps their activity', async (t) => {
    const { user, code } = await g.linkedUser(nextUser(), 'racer', 'Racer_R', 10)
    t.same(await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [GAME], after_member_chunks: true }), { sent: 0, shards: [], held: true })
    await g.gateway.sync.resyncShard(0)
    await settle()
    t.equal(await g.stack.redis.hexists(g.stack.ctx.keys.presence, code), 1, 'the entry the update wrote was not swept')
    t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text, `{${code};\nRacer_R;\nPlaying,\nMinecraft;\n}\n`)
  })

  t.test('a change that follows the chunks is not overwritten by the older presence they carried', async (t) => {
    const { user, code } = await g.linkedUser(nextUser(), 'racer2', 'Racer2_R', 11)
    await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [SPOTIFY] })
    await g.callbacksUntil(code, (s) => s.includes('Spotify'))
    await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [GAME], after_member_chunks: true })
    await g.gateway.sync.resyncShard(0)
    await settle()
    t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text, `{${code};\nRacer2_R;\nPlaying,\nMinecraft;\n}\n`)
  })

  t.test('a user who goes offline while a resync writes stays offline', async (t) => {
    const { user, code } = await g.linkedUser(nextUser(), 'racer3', 'Racer3_R', 12)
    await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [GAME] })
    await g.callbacksUntil(code, (s) => s.includes('Minecraft'))
    await g.control('POST', 'presence', { user_id: user, status: 'offline', activities: [], after_member_chunks: true })
    await g.gateway.sync.resyncShard(0)
    await settle()
    t.equal(await g.stack.redis.hexists(g.stack.ctx.keys.presence, code), 0, 'the resync did not write back the presence from its chunks')
    t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text, `{${code};\nRacer3_R;\nNo activity detected;\n}\n`)
  })
})

t.test('a shard whose mark lapsed is resynced before it counts again, so its stale entries never show', async (t) => {
  const { user, code } = await g.linkedUser(nextUser(), 'lapser', 'Lapse_R', 13)
  const keys = g.stack.ctx.keys
  await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [GAME] })
  await g.callbacksUntil(code, (s) => s.includes('Minecraft'))
  // The heartbeat is held for the scenario: a beat between the lapse below and the front noticing it would resync the
  // shard at once (as it should), so the lapse would never show. The one beat that matters is the test's own.
  await g.gateway.sync.stop([])
  t.teardown(() => g.gateway.sync.startHeartbeat())
  // As after a gateway cut off from Redis for longer than the lease: the mark lapsed, and the entry it left is older
  // than what Discord says now (an update it missed).
  await g.stack.redis.hset(keys.presenceShards, '0', String(Date.now() - 1))
  await g.stack.presence.set(code, { shard: 0, status: 'online', activity: renderActivityGroups([SPOTIFY], 'Roblox') })
  await g.callbacksUntil(code, (s) => s.includes('No activity'), 'the lapse')
  await g.gateway.sync.beat()
  const shown = await g.callbacksUntil(code, (s) => !s.includes('No activity'), 'the shard live again')
  t.equal(shown, `{${code};\nLapse_R;\nPlaying,\nMinecraft;\n}\n`, 'what Discord says, not the entry from before the lapse')
  t.ok(Number(await g.stack.redis.hget(keys.presenceShards, '0')) > Date.now(), 'and the shard is marked live again')
})

t.test('after the gateway stops, its presences are no longer served as live', async (t) => {
  const { user, code } = await g.linkedUser(nextUser(), 'stopper', 'Stop_R', 9)
  await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [GAME] })
  await g.callbacksUntil(code, (s) => s.includes('Minecraft'))
  await g.gatewayCtx.shutdown.run('test stops the gateway')
  t.equal(await g.callbacksUntil(code, (s) => s.includes('No activity')), `{${code};\nStop_R;\nNo activity detected;\n}\n`)
  const shards = await eventually(async () => g.stack.redis.hgetall(g.stack.ctx.keys.presenceShards), 1000)
  t.same(shards, {})
})
