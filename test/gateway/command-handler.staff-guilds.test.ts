/**
 * Staff powers belong to the deployment's staff guilds only (issue 9 §1): the admin of another guild the bot is in
 * gets nothing from /staff, staff see codes masked, a rotated code reaches its owner by DM, and a pardoned infraction
 * stops counting for the safety check. Everything runs through the sandbox with the real discord.js client.
 */
import t from 'tap'
import { eventually, getText, postJson } from '../helpers/stack.js'
import { startGatewayStack, type GatewayStack } from '../helpers/gateway-stack.js'

let g: GatewayStack
let otherGuild: string
let n = 830000000000000000n
const nextUser = () => String(++n)
const MANAGE_GUILD = '32'

type Reply = { content: string; flags: number }
const staffIn = (guildId: string, user: string, sub: string, options: unknown[]) =>
  g.control<Reply>('POST', 'commands', { user_id: user, name: 'staff', guild_id: guildId, options: [{ name: sub, type: 1, options }] })
const userOption = (id: string) => ({ name: 'user', type: 6, value: id })
const dmsOf = (user: string) => g.control<Array<{ content: string; channel_id: string }>>('GET', `messages?user_id=${user}`)
const safety = (platformUserId: number) => postJson(`${g.stack.api}/safety`, { platform_user_id: platformUserId }, `Bearer ${g.stack.apiKey}`)

/** Everything an attack could have changed about a victim. */
async function victimState(user: string, code: string) {
  const codes = await g.stack.db.selectFrom('codes').select(['code', 'state', 'platform_user_id']).where('chat_user_id', '=', user).orderBy('code').execute()
  const log = await g.stack.db.selectFrom('log_entries').select(['event_type']).where('code', '=', code).execute()
  const watch = await g.stack.db.selectFrom('watchlist').select(['platform_user_id', 'reason']).execute()
  return { codes, log, watch, dms: await dmsOf(user) }
}

t.before(async () => {
  g = await startGatewayStack(t)
  const created = await g.control<{ id: string }>('POST', 'guilds', { name: 'Some other server' })
  otherGuild = created.id
  // The bot registers commands per guild when it joins: wait until the other guild has its list.
  await eventually(async () => {
    const state = await g.control<{ commands: { guild: Record<string, Array<{ name: string }>> } }>('GET', 'state')
    return (state.commands.guild[otherGuild]?.length ?? 0) > 0 ? true : undefined
  }, 5000, 'commands in the other guild')
})

t.test('/staff is registered only in the staff guild, for Manage Server by default, in guild channels only', async (t) => {
  const state = await g.control<{ commands: { global: unknown[]; guild: Record<string, Array<Record<string, unknown>>> } }>('GET', 'state')
  const home = state.commands.guild[g.sandbox.defaultGuildId]!
  const staff = home.find((c) => c.name === 'staff')!
  t.equal(staff.default_member_permissions, MANAGE_GUILD)
  t.same(staff.contexts, [0])
  t.equal(staff.dm_permission, undefined, 'not the deprecated dm_permission')
  t.ok((staff.options as Array<{ name: string }>).some((o) => o.name === 'pardon'))
  t.same(state.commands.guild[otherGuild]!.map((c) => c.name).sort(), ['code', 'forget', 'mydata', 'pause', 'resume', 'share', 'unlink'])
  t.same(state.commands.global, [])
})

t.test("another guild's admin gets nothing from /staff", async (t) => {
  const victim = nextUser()
  const code = await g.codeFor(victim, 'victim')
  await g.bind(code, 'Victim_R', 9001)
  const admin = nextUser()
  await g.control('POST', 'members', { id: admin, username: 'otheradmin', guild_id: otherGuild, permissions: MANAGE_GUILD })
  // The victim is banned and watched, so unban and unwatch would visibly change something.
  const homeStaff = nextUser()
  await g.control('POST', 'members', { id: homeStaff, username: 'homestaff', roles: [g.staffRoleId] })
  t.match((await staffIn(g.sandbox.defaultGuildId, homeStaff, 'ban', [userOption(victim)])).content, /^Done: ban/)
  t.match((await staffIn(g.sandbox.defaultGuildId, homeStaff, 'watch', [{ name: 'platform_user_id', type: 4, value: 9001 }])).content, /on the watchlist/)
  const before = await victimState(victim, code)

  const attacks: Array<[string, unknown[]]> = [
    ['info', [userOption(victim)]],
    ['info', [{ name: 'code', type: 3, value: code }]],
    ['rotate', [userOption(victim)]],
    ['unban', [userOption(victim)]],
    ['reset', [userOption(victim)]],
    ['unwatch', [{ name: 'platform_user_id', type: 4, value: 9001 }]],
    ['pardon', [{ name: 'infraction', type: 4, value: 1 }]],
  ]
  for (const [sub, options] of attacks) {
    const reply = await staffIn(otherGuild, admin, sub, options)
    t.equal(reply.content, 'Staff commands work only in the staff server of this service.', `${sub} refused`)
    t.notMatch(reply.content, code.slice(0, 2), `${sub}: no code shown`)
    t.equal(reply.flags & 64, 64, 'ephemeral')
  }
  t.same(await victimState(victim, code), before, 'nothing changed: codes, log, watchlist, DMs')
  t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text, `{${code}:\nVictim_R;\n"This code is banned. Contact support for help.";\n}\n`)

  t.test('a DM with the bot is no staff guild either', async (t) => {
    const reply = await g.control<Reply>('POST', 'commands', { user_id: admin, name: 'staff', dm: true, options: [{ name: 'info', type: 1, options: [userOption(victim)] }] })
    t.equal(reply.content, 'Staff commands work only in the staff server of this service.')
    t.same(await victimState(victim, code), before)
  })
})

t.test('in the staff guild', async (t) => {
  const staff = nextUser()
  await g.control('POST', 'members', { id: staff, username: 'moderator', roles: [g.staffRoleId] })

  t.test('info and rotate show codes masked; the owner gets the new code by DM', async (t) => {
    const owner = nextUser()
    const code = await g.codeFor(owner, 'owner')
    const info = await staffIn(g.sandbox.defaultGuildId, staff, 'info', [userOption(owner)])
    t.equal(info.content.split('\n')[0], `Code **${code.slice(0, 2)}••** of <@${owner}>`)
    t.notMatch(info.content, code)
    const rotated = await staffIn(g.sandbox.defaultGuildId, staff, 'rotate', [userOption(owner)])
    const fresh = (await g.stack.codes.ofUser(owner))!.code
    t.not(fresh, code)
    t.equal(rotated.content, `Code **${code.slice(0, 2)}••** retired. New code for <@${owner}>: **${fresh.slice(0, 2)}••** (sent to them by DM).`)
    t.notMatch(rotated.content, fresh)
    const dm = await eventually(async () => (await dmsOf(owner))[0], 5000, 'the DM')
    t.equal(
      dm.content,
      `Staff gave you a new code: **${fresh}** (your old code **${code}** is retired).\nJoin the game and enter it when asked to link your Roblox account. Keep it private: whoever enters it first links their account to you.`,
    )
  })

  t.test('with DMs closed the staff reply says the code was not sent', async (t) => {
    const owner = nextUser()
    const code = await g.codeFor(owner, 'closeddms')
    const own = await g.control<{ channel_id: string }>('POST', 'messages', { dm: true, author_id: owner, content: 'hi' })
    await g.control('POST', `channels/${own.channel_id}/fail`, { status: 403 })
    const rotated = await staffIn(g.sandbox.defaultGuildId, staff, 'rotate', [userOption(owner)])
    const fresh = (await g.stack.codes.ofUser(owner))!.code
    t.equal(
      rotated.content,
      `Code **${code.slice(0, 2)}••** retired. New code for <@${owner}>: **${fresh.slice(0, 2)}••** (NOT sent: they do not accept DMs from the bot; they can see it with /code).`,
    )
    t.same(await dmsOf(owner), [])
    t.match((await g.control<Reply>('POST', 'commands', { user_id: owner, name: 'code' })).content, `**${fresh}**`)
  })

  t.test('a pardoned infraction stays in the log and no longer makes the safety check say review', async (t) => {
    const owner = nextUser()
    const code = await g.codeFor(owner, 'pardoned')
    await g.bind(code, 'Pardon_R', 9002)
    const res = await postJson(`${g.stack.api}/log/moderation`, { event_type: 'warn', description: 'Mistaken report', issued_by: 'ModBob', code }, `Bearer ${g.stack.apiKey}`)
    t.equal(res.status, 200)
    const row = await eventually(() => g.stack.db.selectFrom('infractions').select('id').where('code', '=', code).executeTakeFirst(), 5000, 'the infraction')
    const id = String(row.id)
    t.equal((await safety(9002)).body.status, 'review')
    const info = await staffIn(g.sandbox.defaultGuildId, staff, 'info', [userOption(owner)])
    t.match(info.content, new RegExp(`^- #${id} .* warn by ModBob: Mistaken report$`, 'm'))

    const pardon = (value: string | number) => staffIn(g.sandbox.defaultGuildId, staff, 'pardon', [{ name: 'infraction', type: 4, value }, { name: 'reason', type: 3, value: 'wrong player' }])
    t.equal((await pardon(Number(id))).content, `Pardoned infraction #${id} (warn) of <@${owner}>: it stays in the log and no longer counts for the safety check.`)
    t.equal((await pardon(Number(id))).content, `Nothing changed: infraction #${id} (warn) of <@${owner}> was already pardoned by moderator (${staff}).`)
    t.equal((await pardon(999999999)).content, 'No infraction #999999999.')

    const after = await safety(9002)
    t.equal(after.body.status, 'safe')
    t.same(after.body.reasons, [])
    const info2 = await staffIn(g.sandbox.defaultGuildId, staff, 'info', [userOption(owner)])
    t.match(info2.content, /^Infractions: 1 \(1 pardoned\)$/m)
    t.match(info2.content, new RegExp(`^- #${id} .* Mistaken report \\(pardoned by moderator \\(${staff}\\)\\)$`, 'm'))
    const endpoint = await getText(`${g.stack.api}/info/${code}`, { authorization: `Bearer ${g.stack.apiKey}` })
    t.equal(endpoint.status, 200)
    const body = JSON.parse(endpoint.text)
    t.equal(body.infraction_count, 1)
    t.equal(body.pardoned_count, 1)
    t.match(body.infractions[0], { id: Number(id), event_type: 'warn', pardoned: true, pardoned_by: `moderator (${staff})`, pardon_reason: 'wrong player' })
    t.match(body.infractions[0].pardoned_at, /^\d{4}-\d\d-\d\dT/)
  })
})
