/**
 * The leave expiry through the real gateway and front against the sandbox: a code holder who leaves every guild of
 * the bot stops being shown within seconds and has the time recorded; after FORGET_AFTER_LEAVE_DAYS the sweep erases
 * them as /forget does, unless they came back (a join clears the time; the sweep asks Discord once more).
 */
import { sql } from 'kysely'
import t from 'tap'
import { eventually, getText } from '../helpers/stack.js'
import { startGatewayStack, type GatewayStack } from '../helpers/gateway-stack.js'

let g: GatewayStack
let n = 850000000000000000n
const GAME = { type: 0, name: 'Minecraft' }

t.before(async () => {
  g = await startGatewayStack(t, { env: { FORGET_AFTER_LEAVE_DAYS: '30' } })
})

const leftAt = async (code: string) => (await g.stack.db.selectFrom('codes').select('left_at').where('code', '=', code).executeTakeFirstOrThrow()).left_at
const backdate = (user: string, days: number) => sql`UPDATE codes SET left_at = NOW(3) - INTERVAL ${days} DAY WHERE chat_user_id = ${user}`.execute(g.stack.db)
const block = async (code: string) => (await getText(`${g.stack.api}/callbacks/${code}`)).text

t.test('leaving every guild: hidden within seconds, erased after the days', async (t) => {
  const { user, code } = await g.linkedUser(String(++n), 'leaver', 'Leave_R', 81)
  await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [GAME] })
  await g.callbacksUntil(code, (text) => text.includes('Minecraft'), 'the presence')
  await g.control('DELETE', 'members', { id: user })
  await g.callbacksUntil(code, (text) => text === `{${code};\nLeave_R;\nNo activity detected;\n}\n`, 'no longer shown')
  t.equal(await g.stack.redis.hexists(g.stack.ctx.keys.presence, code), 0, 'no presence copy left')
  await eventually(async () => ((await leftAt(code)) === null ? undefined : true), 10_000, 'the leave recorded')

  t.same(await g.gateway.expiry.sweep(), { erased: 0, back: 0 }, 'not before the days')
  t.equal((await g.stack.db.selectFrom('codes').select('state').where('code', '=', code).executeTakeFirstOrThrow()).state, 'active')
  await backdate(user, 29)
  t.same(await g.gateway.expiry.sweep(), { erased: 0, back: 0 }, 'not at 29 days')
  await backdate(user, 31)
  t.same(await g.gateway.expiry.sweep(), { erased: 1, back: 0 }, 'erased at 31 days')
  t.equal(await block(code), `{${code}:\n"Code not found";\n}\n`)
  t.match(await g.stack.db.selectFrom('codes').selectAll().where('code', '=', code).executeTakeFirstOrThrow(), { state: 'revoked', chat_user_id: '', platform_user_id: null, left_at: null })
  t.match(await g.stack.db.selectFrom('log_entries').selectAll().where('event_type', '=', 'data_erased').executeTakeFirstOrThrow(), { source: 'expiry', issued_by: 'left every guild 30+ days ago' })
})

t.test('coming back clears the leave; a missed return is found by the sweep', async (t) => {
  const { user, code } = await g.linkedUser(String(++n), 'returner', 'Back_R', 82)
  await g.control('DELETE', 'members', { id: user })
  await eventually(async () => ((await leftAt(code)) === null ? undefined : true), 10_000, 'the leave recorded')
  await g.control('POST', 'members', { id: user, username: 'returner' })
  await eventually(async () => ((await leftAt(code)) === null ? true : undefined), 10_000, 'the return clears it')

  await backdate(user, 40)
  t.same(await g.gateway.expiry.sweep(), { erased: 0, back: 1 }, 'a member is asked about again and kept')
  t.equal(await leftAt(code), null)
  t.equal(await block(code), `{${code};\nBack_R;\nNo activity detected;\n}\n`, 'still linked')
})

t.test('leaving one of two guilds records nothing and keeps showing', async (t) => {
  const second = await g.control<{ id: string }>('POST', 'guilds', { name: 'Expiry Second' })
  const { user, code } = await g.linkedUser(String(++n), 'twoguilds', 'Two_R', 83)
  await g.control('POST', 'members', { id: user, username: 'twoguilds', guild_id: second.id })
  await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [GAME] })
  await g.callbacksUntil(code, (text) => text.includes('Minecraft'), 'the presence')
  await g.control('DELETE', 'members', { id: user })
  // The same check the event ran, awaited here, so the assertion below does not race it.
  await g.gateway.expiry.left(user)
  await g.callbacksUntil(code, (text) => text.includes('Minecraft'), 'still shown from the other guild')
  t.equal(await leftAt(code), null, 'no leave recorded')
})
