import { Events, GatewayIntentBits, type GuildMember, type PartialGuildMember } from 'discord.js'
import t from 'tap'
import { DefaultIds } from '../../../src/sandbox/world.js'
import { call, nextEvent, startClient, startSandbox } from '../fixtures/harness.js'

const PLAYER = { id: '200000000000000001', username: 'player_one' }
const AUTH = { authorization: 'Bot sandbox-token' }

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
