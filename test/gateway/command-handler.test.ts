/**
 * The slash commands (src/gateway/command-handler.ts) through the real gateway and the sandbox: /code, /pause,
 * /resume, /unlink, the staff commands, and the "This wasn't me" button of the bound-code DM.
 */
import t from 'tap'
import { eventually, getText, postJson } from '../helpers/stack.js'
import { startGatewayStack, type GatewayStack } from '../helpers/gateway-stack.js'

let g: GatewayStack
let n = 810000000000000000n
const nextUser = () => String(++n)
const command = (user: string, name: string, options?: unknown[]) =>
  g.control<{ content: string; flags: number }>('POST', 'commands', { user_id: user, name, ...(options === undefined ? {} : { options }) })
const staffCommand = (user: string, sub: string, option: { name: 'user' | 'code'; value: string }) =>
  command(user, 'staff', [{ name: sub, type: 1, options: [{ name: option.name, type: option.name === 'user' ? 6 : 3, value: option.value }] }])

let staff: string

async function nextUserMember(): Promise<string> {
  const id = nextUser()
  await g.control('POST', 'members', { id, username: `member${id.slice(-4)}` })
  return id
}

t.before(async () => {
  g = await startGatewayStack(t)
  staff = nextUser()
  await g.control('POST', 'members', { id: staff, username: 'moderator', roles: [g.staffRoleId] })
})

t.test('/code', async (t) => {
  t.test('issues a code in an ephemeral reply and gives the same code again', async (t) => {
    const user = nextUser()
    await g.control('POST', 'members', { id: user, username: 'newbie' })
    const first = await command(user, 'code')
    t.equal(first.flags & 64, 64, 'ephemeral')
    const code = /\*\*([A-Z0-9]{4})\*\*/.exec(first.content)![1]!
    t.match(code, /^[A-HJKMNP-Z0-9]{4}$/, 'a new code has no O, I or L')
    t.equal(first.content, `Your new code is **${code}**. Join the game and enter it when asked to link your Roblox account.\nKeep it private: whoever enters it first links their account to you.`)
    const again = await command(user, 'code')
    t.equal(again.content, `Your code is **${code}**. Join the game and enter it when asked to link your Roblox account.\nKeep it private: whoever enters it first links their account to you.`)
    t.equal((await g.stack.codes.ofUser(user))?.code, code)
  })

  t.test('shows the linked account once bound', async (t) => {
    const user = nextUser()
    const code = await g.codeFor(user, 'linked')
    await g.bind(code, 'Linked_R', 42)
    const reply = await command(user, 'code')
    t.equal(reply.content, `Your code **${code}** is linked to the Roblox account **Linked_R**.\nUse /unlink to remove the link.`)
  })
})

t.test('/pause and /resume change callbacks; /unlink retires the code', async (t) => {
  const user = nextUser()
  const code = await g.codeFor(user, 'pauser')
  await g.bind(code, 'Pauser_R', 43)
  t.equal((await command(user, 'pause')).content, 'Detection paused: games now see "Detection Paused". Use /resume to undo.')
  t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text, `{${code}:\n"Detection Paused";\n}\n`)
  t.equal((await command(user, 'pause')).content, 'Nothing changed: detection is already paused.')
  t.equal((await command(user, 'resume')).content, 'Detection resumed: games see your activity again.')
  t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text, `{${code};\nPauser_R;\nNo activity detected;\n}\n`)
  t.equal((await command(user, 'unlink')).content, `Your code **${code}** is retired and its link to **Pauser_R** removed. Use /code to get a new one.`)
  t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text, `{${code}:\n"Code not found";\n}\n`)
  const fresh = await command(user, 'code')
  t.match(fresh.content, /^Your new code is \*\*[A-Z0-9]{4}\*\*/)
  t.notMatch(fresh.content, code)
  const codeless = nextUser()
  await g.control('POST', 'members', { id: codeless, username: 'codeless' })
  t.equal((await command(codeless, 'pause')).content, 'You have no code yet. Use /code to get one.')
})

t.test('staff commands', async (t) => {
  t.test('ban by user gives the banned block; unban restores it', async (t) => {
    const user = nextUser()
    const code = await g.codeFor(user, 'target')
    await g.bind(code, 'Target_R', 44)
    const reply = await staffCommand(staff, 'ban', { name: 'user', value: user })
    t.equal(reply.content, `Done: ban on code **${code.slice(0, 2)}••** of <@${user}>.`)
    t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text, `{${code}:\nTarget_R;\n"This code is banned. Contact support for help.";\n}\n`)
    t.equal((await staffCommand(staff, 'unban', { name: 'code', value: code })).content, `Done: unban on code **${code.slice(0, 2)}••** of <@${user}>.`)
    t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text, `{${code};\nTarget_R;\nNo activity detected;\n}\n`)
    const trail = await g.stack.db.selectFrom('log_entries').select(['event_type', 'issued_by']).where('code', '=', code).orderBy('id').execute()
    t.same(trail, [
      { event_type: 'code_ban', issued_by: `moderator (${staff})` },
      { event_type: 'code_unban', issued_by: `moderator (${staff})` },
    ])
  })

  t.test('a banned user cannot trade the ban for a new code with /unlink then /code', async (t) => {
    const user = nextUser()
    const code = await g.codeFor(user, 'evader')
    await g.bind(code, 'Evader_R', 47)
    await staffCommand(staff, 'ban', { name: 'user', value: user })
    t.equal(
      (await command(user, 'unlink')).content,
      `Nothing changed: your code **${code}** is banned, and a banned code cannot be retired or traded for a new one. Only staff can lift a ban; contact a staff member if you think this is a mistake.`,
    )
    t.match((await command(user, 'code')).content, `Your code **${code}** is banned`, '/code still shows the banned code')
    t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text, `{${code}:\nEvader_R;\n"This code is banned. Contact support for help.";\n}\n`)
    const trail = await g.stack.db.selectFrom('log_entries').select(['event_type']).where('code', '=', code).orderBy('id').execute()
    t.same(trail, [{ event_type: 'code_ban' }], 'nothing was retired')
  })

  t.test('reset unlinks an invalidated code so its user can bind again; rotate gives a new code', async (t) => {
    const user = nextUser()
    const code = await g.codeFor(user, 'victim')
    await g.bind(code, 'Victim_R', 45)
    t.equal((await g.bind(code, 'Thief_R', 46)).status, 409)
    t.equal((await staffCommand(staff, 'reset', { name: 'code', value: code })).content, `Done: reset on code **${code.slice(0, 2)}••** of <@${user}>.`)
    t.equal((await g.bind(code, 'Victim_R', 45)).status, 200)
    const rotated = await staffCommand(staff, 'rotate', { name: 'user', value: user })
    const fresh = (await g.stack.codes.ofUser(user))!.code
    t.not(fresh, code)
    t.equal(rotated.content, `Code **${code.slice(0, 2)}••** retired. New code for <@${user}>: **${fresh.slice(0, 2)}••** (sent to them by DM).`)
  })

  t.test('info shows the state, the account and the infraction count', async (t) => {
    const user = nextUser()
    const code = await g.codeFor(user, 'infoed')
    await g.bind(code, 'Info_R', 47)
    const reply = await staffCommand(staff, 'info', { name: 'code', value: code.toLowerCase() })
    t.equal(reply.content, `Code **${code.slice(0, 2)}••** of <@${user}>\nState: active\nAccount: Info_R (47)\nInfractions: 0`)
  })

  t.test('info lists the infractions newest first', async (t) => {
    const user = nextUser()
    const code = await g.codeFor(user, 'offender')
    await g.bind(code, 'Offender_R', 49)
    for (const [event, description] of [['warn', 'Spamming chat'], ['kick', 'Exploiting\nspeed hacks']]) {
      const res = await postJson(`${g.stack.api}/log/moderation`, { event_type: event, description, issued_by: 'ModBob', code }, `Bearer ${g.stack.apiKey}`)
      t.equal(res.status, 200)
      await eventually(() => g.stack.db.selectFrom('infractions').select('id').where('code', '=', code).where('event_type', '=', event!).executeTakeFirst(), 5000, event)
    }
    const reply = await staffCommand(staff, 'info', { name: 'user', value: user })
    const lines = reply.content.split('\n')
    t.same(lines.slice(0, 4), [`Code **${code.slice(0, 2)}••** of <@${user}>`, 'State: active', 'Account: Offender_R (49)', 'Infractions: 2'])
    t.match(lines[4], /^- #\d+ \d{4}-\d\d-\d\d \d\d:\d\d kick by ModBob: Exploiting speed hacks$/)
    t.match(lines[5], /^- #\d+ \d{4}-\d\d-\d\d \d\d:\d\d warn by ModBob: Spamming chat$/)
    t.equal(lines.length, 6)
  })

  t.test('watch puts a game account on the watchlist, which the safety check then flags; unwatch takes it off', async (t) => {
    const watch = (sub: string, options: unknown[]) => command(staff, 'staff', [{ name: sub, type: 1, options }])
    const safety = () => postJson(`${g.stack.api}/safety`, { platform_user_id: 777001 }, `Bearer ${g.stack.apiKey}`)
    t.equal((await safety()).body.status, 'safe')
    const added = await watch('watch', [{ name: 'platform_user_id', type: 4, value: 777001 }, { name: 'reason', type: 3, value: 'alt of a banned player' }])
    t.equal(added.content, 'Game account 777001 is on the watchlist: the safety check now flags it.')
    const flagged = await safety()
    t.equal(flagged.body.status, 'review')
    t.match(JSON.stringify(flagged.body.reasons), /alt of a banned player/)
    t.equal((await watch('unwatch', [{ name: 'platform_user_id', type: 4, value: 777001 }])).content, 'Game account 777001 is off the watchlist.')
    t.equal((await safety()).body.status, 'safe')
    t.equal((await command(await nextUserMember(), 'staff', [{ name: 'watch', type: 1, options: [{ name: 'platform_user_id', type: 4, value: 1 }] }])).content, 'Only staff can use this command.')
  })

  t.test('members without the staff role or Manage Server are refused; bad options are explained', async (t) => {
    const user = nextUser()
    const code = await g.codeFor(user, 'plain')
    t.equal((await staffCommand(user, 'ban', { name: 'code', value: code })).content, 'Only staff can use this command.')
    t.equal((await g.stack.codes.show(code))?.state, 'active')
    t.equal((await staffCommand(staff, 'ban', { name: 'code', value: 'AB' })).content, 'A code is 4 characters, A-Z or 0-9.')
    t.equal((await staffCommand(staff, 'ban', { name: 'code', value: 'QQQQ' })).content, 'No such code.')
    t.equal((await command(staff, 'staff', [{ name: 'ban', type: 1, options: [] }])).content, 'Give either a user or a code.')
  })
})

t.test('an unknown slash command is answered as unknown, not as a staff refusal', async (t) => {
  const out = await command(await nextUserMember(), 'frobnicate')
  t.equal(
    out.content,
    "Unknown command /frobnicate: this bot has /code, /pause, /resume and /unlink (and /staff for staff). A command removed from the bot can stay in Discord's list for a while; it does nothing.",
  )
  t.notMatch(out.content, /Only staff/)
})

t.test('binding a code DMs its user; "This wasn\'t me" invalidates it and writes a moderation entry', async (t) => {
  const user = nextUser()
  const code = await g.codeFor(user, 'dmuser')
  await g.bind(code, 'Dm_R', 48)
  const dm = await eventually(async () => {
    const messages = await g.control<Array<{ id: string; content: string; components: any[]; allowed_mentions: unknown }>>('GET', `messages?user_id=${user}`)
    return messages[0]
  }, 5000, 'the DM')
  t.equal(dm.content, `Your code **${code}** was just linked to the Roblox account **Dm_R** (id 48).\nIf this wasn't you, press the button below: the code will be invalidated and staff will be told; then /unlink and /code give you a new one.`)
  t.same(dm.allowed_mentions, { parse: [] })
  const button = dm.components[0].components[0]
  t.equal(button.label, "This wasn't me")
  const stranger = nextUser()
  await g.control('POST', 'members', { id: stranger, username: 'stranger' })
  const refused = await g.control<{ content: string }>('POST', 'components', { user_id: stranger, custom_id: button.custom_id, message_id: dm.id })
  t.equal(refused.content, 'This button is not for you.')
  const reply = await g.control<{ content: string }>('POST', 'components', { user_id: user, custom_id: button.custom_id, message_id: dm.id })
  t.equal(reply.content, `Code **${code}** is invalidated and staff were told: no game account can use it now. Use /unlink to retire it, then /code gives you a new one.`)
  t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text, `{${code}:\nDm_R;\n"This code was invalidated. Contact support for help.";\n}\n`)
  const entry = await g.stack.db.selectFrom('log_entries').selectAll().where('code', '=', code).where('event_type', '=', 'code_invalidate').executeTakeFirstOrThrow()
  t.equal(entry.category, 'moderation')
  t.equal(entry.issued_by, `dmuser (${user}): this wasn't me`)

  t.test('afterwards every text says what happened and that /unlink then /code gives a new code, which it does', async (t) => {
    const press = () => g.control<{ content: string }>('POST', 'components', { user_id: user, custom_id: button.custom_id, message_id: dm.id })
    t.equal((await press()).content, `Nothing changed: code **${code}** is already invalidated. Use /unlink to retire it, then /code gives you a new one.`)
    const shown = (await command(user, 'code')).content
    t.equal(shown, `Your code **${code}** is invalidated: it can no longer link an account (this happens when another Roblox account tries to use it, or when you press "This wasn't me"). Use /unlink to retire it, then /code gives you a new one.`)
    t.notMatch(shown, /staff/i, 'no "ask staff": the user can do it alone')
    const again = await g.bind(code, 'Dm_R', 48)
    t.match(again, { status: 409, body: { detail: { status: 'invalidated', message: 'This code was invalidated and can no longer link any account. Its owner can get a new code in Discord (/unlink, then /code) or contact support; do not retry.' } } })
    t.equal((await command(user, 'unlink')).content, `Your code **${code}** is retired and its link to **Dm_R** removed. Use /code to get a new one.`)
    const fresh = /^Your new code is \*\*([A-Z0-9]{4})\*\*\./.exec((await command(user, 'code')).content)?.[1]
    t.ok(fresh !== undefined && fresh !== code, 'a new code, without staff')
    t.equal((await g.bind(fresh!, 'Dm_R', 48)).status, 200, 'and it binds')
    t.equal((await press()).content, `Nothing changed: code **${code}** is already retired. /code shows your current code.`)
  })
})

t.test('a code burnt by another account\'s bind: the bind, /code and callbacks say so without blaming the owner', async (t) => {
  const user = nextUser()
  const code = await g.codeFor(user, 'burnt')
  t.equal((await g.bind(code, 'First_R', 61)).status, 200)
  const conflict = await g.bind(code, 'Second_R', 62)
  t.equal(conflict.status, 409)
  t.equal(conflict.body.detail.message, 'This code was invalidated and can no longer link any account. Its owner can get a new code in Discord (/unlink, then /code) or contact support; do not retry.')
  t.match((await command(user, 'code')).content, /^Your code \*\*[A-Z0-9]{4}\*\* is invalidated: it can no longer link an account .* Use \/unlink to retire it, then \/code gives you a new one\.$/)
})
