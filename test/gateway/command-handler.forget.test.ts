/**
 * `/mydata` and `/forget` through the real gateway and front against the sandbox: it asks with a confirmation button and changes
 * nothing until the button is pressed (Cancel and someone else's press change nothing either); then, within seconds,
 * the code is unknown everywhere (callbacks, rpc, bind, players, Redis copies, push subscriptions), infractions lose
 * the link to the user, the user's name leaves the log entries of their own actions, and a later /code starts fresh.
 */
import t from 'tap'
import { eventually, getText, postJson } from '../helpers/stack.js'
import { startGatewayStack, type GatewayStack } from '../helpers/gateway-stack.js'
import { createPushSubscriptions } from '../../src/redis/push-subscriptions.js'
import { openSse } from '../helpers/stream-clients.js'

let g: GatewayStack
const USER = '830000000000000001'
const STRANGER = '830000000000000002'
const GAME = { type: 0, name: 'Minecraft' }
const UNIVERSE = 3201

type Answer = { content: string; flags: number; message_id: string; components: Array<{ components: Array<{ custom_id: string; label: string }> }> }
const command = (user: string, name: string, options?: unknown[]) =>
  g.control<Answer>('POST', 'commands', { user_id: user, name, ...(options === undefined ? {} : { options }) })
const press = (user: string, answer: Answer, label: string) => {
  const button = answer.components[0]!.components.find((b) => b.label === label)!
  return g.control<Answer>('POST', 'components', { user_id: user, custom_id: button.custom_id, message_id: answer.message_id })
}

t.before(async () => {
  g = await startGatewayStack(t)
})

/** Every Redis key of the test's prefix outside BullMQ's queues whose name or value holds `needle`. */
async function redisHolding(needle: string): Promise<string[]> {
  const { redis } = g.stack
  const found: string[] = []
  let cursor = '0'
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${g.stack.config.redisPrefix}:*`, 'COUNT', 1000)
    cursor = next
    for (const key of keys) {
      if (key.startsWith(`${g.stack.config.redisPrefix}:bull:`)) continue
      const type = await redis.type(key)
      const text =
        type === 'string' ? await redis.get(key)
        : type === 'hash' ? JSON.stringify(await redis.hgetall(key))
        : type === 'set' ? JSON.stringify(await redis.smembers(key))
        : type === 'zset' ? JSON.stringify(await redis.zrange(key, '0', '-1'))
        : ''
      if (key.includes(needle) || (text ?? '').includes(needle)) found.push(key)
    }
  } while (cursor !== '0')
  return found
}

t.test('/forget asks, then erases on the button', async (t) => {
  const { code } = await g.linkedUser(USER, 'forgetful', 'Forget_R', 71)
  await g.control('POST', 'members', { id: STRANGER, username: 'stranger' })
  await command(USER, 'share', [{ name: 'show', type: 3, value: 'games' }])
  await command(USER, 'pause')
  await command(USER, 'resume')
  const logged = await postJson(`${g.stack.api}/log/moderation`, { event_type: 'warn', description: 'Spamming', issued_by: 'ModBob', code }, `Bearer ${g.stack.apiKey}`)
  t.equal(logged.status, 200)
  await eventually(() => g.stack.db.selectFrom('infractions').select('id').where('code', '=', code).executeTakeFirst(), 10_000, 'the infraction')
  await g.control('POST', 'presence', { user_id: USER, status: 'online', activities: [GAME] })
  const shown = `{${code};\nForget_R;\nPlaying,\nMinecraft;\n}\n`
  await g.callbacksUntil(code, (text) => text === shown, 'the presence')
  const subs = createPushSubscriptions(g.stack.redis, g.stack.ctx.keys)
  await subs.subscribe('k1', UNIVERSE, 'job-1', [code, 'ZZZ9'], 60_000)
  await subs.subscribe('k1', UNIVERSE, 'job-2', [code], 60_000)
  await g.stack.redis.hset(g.stack.ctx.keys.pushSent(UNIVERSE), code, 'digest', 'ZZZ9', 'digest')
  const row = () => g.stack.db.selectFrom('codes').selectAll().where('code', '=', code).executeTakeFirstOrThrow()
  const before = await row()

  t.test('/mydata shows what is kept, with the JSON export attached', async (t) => {
    const mine = (await command(USER, 'mydata')) as Answer & { attachments?: Array<{ filename: string; size: number }> }
    t.equal(mine.flags & 64, 64, 'ephemeral')
    t.match(mine.content, `**What this service keeps about you**\nCode: **${code}** (active, linked; issued `)
    t.match(mine.content, 'Game account: Forget_R (id 71), linked ')
    t.match(mine.content, 'Share setting: games: games see only the games you play or compete in.')
    t.match(mine.content, 'Detection: on; live activity held now: yes.')
    t.match(mine.content, 'Game keys that used your code in the last 24 h:\n- k1: 0 log entries, 2 server(s) subscribed to its pushes\n- test-server: 1 log entry, 0 server(s) subscribed to its pushes')
    t.match(mine.content, /Infractions: 1; latest .* UTC, warn by ModBob: Spamming/)
    t.match(mine.content, '**When it is deleted**\n- Your code, its link, your share setting and pause state: when you run /forget; or 30 days after you leave')
    t.ok(mine.content.length <= 2000)
    t.match(mine.attachments, [{ filename: 'mydata.json' }], 'the export is attached')
    t.ok(mine.attachments![0]!.size > 100)
  })

  const asked = await command(USER, 'forget')
  t.equal(asked.flags & 64, 64, 'ephemeral')
  t.equal(
    asked.content,
    'This erases what the service keeps about you, for good:\n' +
      `- your code **${code}** and its link to the Roblox account **Forget_R** (id 71)\n` +
      '- your share setting and pause state, and your live activity wherever it is held\n' +
      "- the games' push subscriptions for your code\n" +
      '- your name on your own actions in the logs, and the link between you and 1 infraction(s) (the games keep those records, without you)\n' +
      'Games then see "Code not found". It cannot be undone; /code afterwards gives you a new code. Press **Erase my data** to go on.',
  )
  t.same(asked.components[0]!.components.map((b) => b.label), ['Erase my data', 'Cancel'])

  t.test('nothing changes until the button is pressed', async (t) => {
    t.same(await row(), before, 'the code row')
    t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text, shown, 'callbacks')
    t.equal((await press(STRANGER, asked, 'Erase my data')).content, 'This button is not for you.')
    t.same(await row(), before, 'another user pressing erases nothing')
    const cancelled = await press(USER, asked, 'Cancel')
    t.equal(cancelled.content, 'Nothing was erased.')
    t.same(cancelled.components, [], 'the buttons are gone')
    t.same(await row(), before, 'cancel erases nothing')
  })

  t.test('the button erases, within seconds', async (t) => {
    const sse = await openSse(g.stack.origin, `/api/v1/stream/${code}`)
    t.teardown(() => sse.close())
    t.equal((await sse.next()).data, shown, 'a stream open on the code')
    const again = await command(USER, 'forget')
    const pressedAt = Date.now()
    const done = await press(USER, again, 'Erase my data')
    t.equal(done.content, 'Done: your data is erased (1 code(s)). Games see "Code not found" for it now. /code gives you a new code if you want one.')
    t.same(done.components, [])
    await g.callbacksUntil(code, (text) => text === `{${code}:\n"Code not found";\n}\n`, 'callbacks: Code not found')
    // For the record (no assertion on time): from the press to callbacks answering "Code not found".
    t.comment(`callbacks say Code not found ${Date.now() - pressedAt} ms after the press`)
    t.equal((await getText(`${g.stack.api}/rpc/${code}`)).text, `{${code};\n}\n`, 'rpc: an empty block')
    t.equal((await sse.next((e) => e.data.includes('Code not found'), 'the stream told', 10_000)).data, `{${code}:\n"Code not found";\n}\n`, 'the stream: Code not found')
    t.notOk(sse.events.some((e) => e.data.includes('Minecraft')), 'and no activity after it')
    t.match(await g.bind(code, 'Forget_R', 71), { status: 404, body: { detail: { status: 'not_found' } } }, 'bind: not_found')
    const players = await getText(`${g.stack.api}/players/71`, { authorization: `Bearer ${g.stack.apiKey}` })
    t.same(JSON.parse(players.text), { platform_user_id: 71, codes: [] }, 'players: no code')

    const erased = await row()
    t.match(erased, { state: 'revoked', chat_user_id: '', platform_user_id: null, platform_username: null, bound_at: null, share: 'everything' }, 'the row is an anonymous tombstone')
    t.equal(await redisHolding(USER).then((keys) => keys.join(',')), '', 'no Redis key outside the queues holds the user id')
    t.equal(await g.stack.redis.hget(g.stack.ctx.keys.holders, USER), null)
    t.equal(await g.stack.redis.hexists(g.stack.ctx.keys.presence, code), 0, 'no presence')
    t.equal(await g.stack.redis.hexists(g.stack.ctx.keys.share, code), 0, 'no share setting')
    t.match(await g.stack.redis.hget(g.stack.ctx.keys.codes, code), /^revoked\|0\|\|\|\d+$/, 'the Redis tombstone names no one')
    const left = await g.stack.redis.hgetall(g.stack.ctx.keys.pushSubscriptions(UNIVERSE))
    t.same(Object.keys(left), ['k1|job-1'], 'a subscription of the erased code alone is gone')
    t.match(left['k1|job-1'], /^\d+\|ZZZ9$/, 'another code of a subscription stays')
    t.same(Object.keys(await g.stack.redis.hgetall(g.stack.ctx.keys.pushSent(UNIVERSE))), ['ZZZ9'], 'its sent block is gone')

    const infraction = await g.stack.db.selectFrom('infractions').selectAll().where('code', '=', code).executeTakeFirstOrThrow()
    t.match(infraction, { chat_user_id: '', platform_user_id: '71', event_type: 'warn', issued_by: 'ModBob' }, "the infraction stays the game's record, without the link to the user")
    const entries = await g.stack.db.selectFrom('log_entries').select(['event_type', 'issued_by', 'description']).where('code', '=', code).orderBy('id').execute()
    t.same(entries.map((e) => [e.event_type, e.issued_by]), [['code_pause', 'an erased chat user'], ['code_resume', 'an erased chat user'], ['warn', 'ModBob']])
    const trail = await g.stack.db.selectFrom('log_entries').selectAll().where('event_type', '=', 'data_erased').execute()
    t.equal(trail.length, 1, 'one data_erased entry')
    t.match(trail[0], { category: 'moderation', code: null, issued_by: 'discord', description: "A chat user's data was erased on request (1 code retired and unlinked)" })
    t.notMatch(JSON.stringify(trail[0]), USER, 'it names no one')

    t.equal((await command(USER, 'mydata')).content, 'The service keeps nothing about you: you have no code and no infraction.', '/mydata shows nothing')
    await g.control('POST', 'presence', { user_id: USER, status: 'online', activities: [GAME] })
    const fresh = await command(USER, 'code')
    t.match(fresh.content, /^Your new code is \*\*[A-Z0-9]{4}\*\*/, 'a later /code starts fresh')
    t.notMatch(fresh.content, code)
    t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text, `{${code}:\n"Code not found";\n}\n`, 'the old code stays unknown')
  })
})

t.test('/forget with nothing stored says so and offers no button', async (t) => {
  const nobody = '830000000000000003'
  await g.control('POST', 'members', { id: nobody, username: 'nobody' })
  const answer = await command(nobody, 'forget')
  t.equal(answer.content, 'The service keeps nothing about you: there is nothing to erase.')
  t.same(answer.components, [])
})

t.test('/staff forget erases a member at their request, recorded under the staff name', async (t) => {
  const staff = '830000000000000010'
  await g.control('POST', 'members', { id: staff, username: 'moderator', roles: [g.staffRoleId] })
  const { user, code } = await g.linkedUser('830000000000000011', 'asker', 'Ask_R', 72)
  const staffForget = (confirm: boolean, target = user) =>
    command(staff, 'staff', [{ name: 'forget', type: 1, options: [{ name: 'user', type: 6, value: target }, { name: 'confirm', type: 5, value: confirm }] }])
  t.equal((await staffForget(false)).content, `Nothing was erased: set confirm to True to erase the data of <@${user}>.`)
  t.equal((await g.stack.codes.show(code))?.chatUserId, user, 'nothing changed')
  t.equal((await command(user, 'staff', [{ name: 'forget', type: 1, options: [{ name: 'user', type: 6, value: user }, { name: 'confirm', type: 5, value: true }] }])).content, 'Only staff can use this command.')
  t.equal((await staffForget(true)).content, `Erased the data of <@${user}> (1 code(s), 0 infraction(s) unlinked). A data_erased moderation entry names you.`)
  await g.callbacksUntil(code, (text) => text === `{${code}:\n"Code not found";\n}\n`, 'Code not found')
  const trail = await g.stack.db.selectFrom('log_entries').select(['issued_by', 'description']).where('event_type', '=', 'data_erased').where('issued_by', 'like', 'moderator%').executeTakeFirstOrThrow()
  t.equal(trail.issued_by, `moderator (${staff})`)
  t.equal((await staffForget(true)).content, `The service keeps nothing about <@${user}>: nothing to erase.`)
})
