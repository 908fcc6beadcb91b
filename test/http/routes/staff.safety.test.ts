/** POST /api/v1/safety over HTTP: verdicts, reasons and Threat Detection entries. */
import t from 'tap'
import { destinationsCommand, watchlistCommand } from '../../../src/cli/in-process.js'
import type { Sandbox } from '../../../src/sandbox/create-sandbox.js'
import { DefaultIds } from '../../../src/sandbox/world.js'
import { deliveryStack, recorded, startSandbox } from '../../helpers/delivery-harness.js'
import { eventually, postJson, startStack, type Stack } from '../../helpers/stack.js'

let sandbox: Sandbox
let stack: Stack
let auth: string

const safety = (body: unknown, key: string | null = auth) => postJson(`${stack.api}/safety`, body, key)

const threatEntries = (platformUserId: string) =>
  stack.db.selectFrom('log_entries').selectAll().where('event_type', '=', 'threat_detection').where('platform_user_id', '=', platformUserId).execute()

const threatEntry = (platformUserId: string) =>
  eventually(async () => (await threatEntries(platformUserId))[0], 5000, `threat detection entry for ${platformUserId}`)

t.before(async () => {
  sandbox = await startSandbox(t)
  // Only the moderation log has a destination, so Threat Detection falls back to it.
  stack = await deliveryStack(t, sandbox, { LOG_DESTINATION_MODERATION: DefaultIds.moderationLog })
  auth = `Bearer ${stack.apiKey}`
})

t.test('verdicts', async (t) => {
  t.test('a player nothing is known about is safe, and nothing is logged', async (t) => {
    const res = await safety({ platform_user_id: 1000, platform_username: 'Nice_Player' })
    t.equal(res.status, 200)
    t.same(res.body, { status: 'safe', reasons: [] })
    const { code } = await stack.codes.issue('800000000000000000')
    await stack.codes.bind(code.code, { platformUserId: '1000', platformUsername: 'Nice_Player' }, { source: 'test' })
    t.same((await safety({ platform_user_id: 1000, code: code.code })).body, { status: 'safe', reasons: [] }, 'with their own active code too')
    t.same(await threatEntries('1000'), [])
  })

  t.test('a banned code is unsafe', async (t) => {
    const { code } = await stack.codes.issue('800000000000000001')
    await stack.codes.bind(code.code, { platformUserId: '1001', platformUsername: 'Bad_Actor' }, { source: 'test' })
    await stack.codes.act(code.code, 'ban', { source: 'test' })
    const res = await safety({ platform_user_id: 1001, platform_username: 'Bad_Actor', code: code.code })
    t.same(res.body, { status: 'unsafe', reasons: [{ reason: 'code_banned', message: `code ${code.code} is banned` }] })
    t.test('and so is the account linked to it, even without the code', async (t) => {
      const again = await safety({ platform_user_id: 1001 })
      t.same(again.body, { status: 'unsafe', reasons: [{ reason: 'linked_code_banned', message: `the account is linked to banned code ${code.code}` }] })
    })
  })

  t.test('an invalidated code is unsafe', async (t) => {
    const { code } = await stack.codes.issue('800000000000000002')
    await stack.codes.bind(code.code, { platformUserId: '2001', platformUsername: 'Owner_One' }, { source: 'test' })
    await stack.codes.bind(code.code, { platformUserId: '2002', platformUsername: 'Code_Thief' }, { source: 'test' })
    const res = await safety({ platform_user_id: 2002, code: code.code })
    t.equal(res.body.status, 'unsafe')
    t.same(res.body.reasons.map((r: any) => r.reason), ['code_invalidated', 'code_linked_elsewhere'])
  })

  t.test('infractions: one is for review, three are unsafe (SAFETY_REVIEW_INFRACTIONS=1, SAFETY_UNSAFE_INFRACTIONS=3)', async (t) => {
    const { code } = await stack.codes.issue('800000000000000003')
    await stack.codes.bind(code.code, { platformUserId: '3001', platformUsername: 'Rule_Breaker' }, { source: 'test' })
    const infract = async (n: number) => {
      await postJson(`${stack.api}/log/moderation`, { event_type: 'warn', description: `warning ${n}`, code: code.code }, auth)
      await eventually(async () => {
        const rows = await stack.db.selectFrom('infractions').select('id').where('code', '=', code.code).execute()
        return rows.length >= n ? true : undefined
      }, 5000, `${n} infractions`)
    }
    await infract(1)
    t.same((await safety({ platform_user_id: 3001, code: code.code })).body, { status: 'review', reasons: [{ reason: 'infractions', message: '1 infraction on record (review from 1)' }] })
    await infract(2)
    await infract(3)
    t.same((await safety({ platform_user_id: 3001, code: code.code })).body, { status: 'unsafe', reasons: [{ reason: 'infractions', message: '3 infractions on record (unsafe from 3)' }] })
    t.same((await safety({ platform_user_id: 3001 })).body.status, 'unsafe', 'counted by platform user id without the code')
    t.same((await safety({ platform_user_id: 3999, code: code.code })).body.reasons.map((r: any) => r.reason), ['code_linked_elsewhere', 'infractions'], "and by the code's chat user for another account")
  })

  t.test('a staff watchlist entry is for review', async (t) => {
    t.same(await watchlistCommand(stack.ctx, ['add', '5001', '--reason', 'exploit reports']), { lines: ['added 5001 to the watchlist'], exitCode: 0 })
    t.same((await safety({ platform_user_id: 5001 })).body, { status: 'review', reasons: [{ reason: 'watchlist', message: 'on the staff watchlist: exploit reports' }] })
    await watchlistCommand(stack.ctx, ['remove', '5001'])
    t.same((await safety({ platform_user_id: 5001 })).body, { status: 'safe', reasons: [] }, 'and safe again once removed')
  })
})

t.test('Threat Detection', async (t) => {
  t.test('falls back to the moderation log when the in-game log has no destination', async (t) => {
    await watchlistCommand(stack.ctx, ['add', '6001', '--reason', 'alt account'])
    const { code } = await stack.codes.issue('800000000000000006')
    await safety({ platform_user_id: 6001, platform_username: 'Watched_One', code: code.code })
    const entry = await threatEntry('6001')
    t.match(entry, {
      category: 'moderation',
      event_type: 'threat_detection',
      issued_by: 'Threat Detection',
      platform_username: 'Watched_One',
      code: null,
      source: 'api:test-server',
      description: `Safety check: REVIEW for Watched_One (6001) using code ${code.code}\n- on the staff watchlist: alt account`,
    })
    t.same(await stack.db.selectFrom('infractions').selectAll().where('log_entry_id', '=', entry.id).execute(), [], 'it never becomes an infraction')
    const message = await eventually(async () => {
      const all = await recorded(sandbox, { channel_id: DefaultIds.moderationLog })
      return all.find((m) => m.embeds.some((e) => e.footer.text === `Entry #${entry.id}`))
    }, 10_000, 'the entry in the moderation channel')
    t.match(message.embeds.find((e) => e.footer.text === `Entry #${entry.id}`), {
      title: 'Moderation log · threat\\_detection',
      fields: [{ name: 'Event', value: 'threat\\_detection' }, { name: 'Player', value: '[Watched\\_One](https://www.roblox.com/users/6001/profile) (6001)' }, { name: 'Issued by', value: 'Threat Detection' }, { name: 'Source', value: 'api:test-server' }],
    })
  })

  t.test('goes to the in-game log once it has a destination', async (t) => {
    t.equal((await destinationsCommand(stack.ctx, ['set', 'ingame', DefaultIds.ingameLog])).exitCode, 0)
    await watchlistCommand(stack.ctx, ['add', '6002'])
    await safety({ platform_user_id: 6002 })
    const entry = await threatEntry('6002')
    t.match(entry, { category: 'ingame', event_type: 'threat_detection', issued_by: 'Threat Detection', description: 'Safety check: REVIEW for player 6002\n- on the staff watchlist' })
    const message = await eventually(async () => (await recorded(sandbox, { channel_id: DefaultIds.ingameLog })).at(-1), 10_000, 'the entry in the in-game channel')
    t.match(message.embeds.at(-1), { title: 'In-game log · threat\\_detection', footer: { text: `Entry #${entry.id}` } })
  })
})

t.test('rejections follow the log endpoint rules', async (t) => {
  const invalid: Array<[string, unknown, number, string]> = [
    ['missing platform_user_id', { platform_username: 'Someone' }, 422, 'validation_failed'],
    ['zero platform_user_id', { platform_user_id: 0 }, 422, 'validation_failed'],
    ['a string platform_user_id', { platform_user_id: '42' }, 422, 'validation_failed'],
    ['a username that is not a Roblox username', { platform_user_id: 42, platform_username: 'no spaces allowed' }, 422, 'validation_failed'],
    ['a body that is not an object', [1, 2], 422, 'validation_failed'],
    ['a lowercase code', { platform_user_id: 42, code: 'ab12' }, 400, 'invalid_code'],
    ['a short code', { platform_user_id: 42, code: 'AB1' }, 400, 'invalid_code'],
    ['a numeric code', { platform_user_id: 42, code: 1234 }, 400, 'invalid_code'],
  ]
  for (const [name, body, status, code] of invalid) {
    t.test(`${name} gives ${status} ${code}`, async (t) => {
      const res = await safety(body)
      t.equal(res.status, status)
      t.equal(res.body.detail.status, 'error')
      t.equal(res.body.detail.code, code)
    })
  }
  t.test('missing platform_user_id names the field', async (t) => {
    t.same((await safety({})).body.detail.issues, [{ field: 'platform_user_id', message: 'is required' }])
  })
  t.test('a missing or bad key is 401', async (t) => {
    for (const key of [null, 'Bearer nope']) t.equal((await safety({ platform_user_id: 1 }, key)).status, 401)
  })
  t.test('malformed JSON is 422 and a non-JSON type is 415', async (t) => {
    t.equal((await safety('{nope')).status, 422)
    t.equal((await postJson(`${stack.api}/safety`, 'x', auth, { 'content-type': 'application/xml' })).status, 415)
  })
})

t.test('safety has its own per-IP rate limit', async (t) => {
  const limited = await startStack(t, { env: { RATE_LIMITS: 'safety=1/60' }, consumers: [] })
  const check = () => postJson(`${limited.api}/safety`, { platform_user_id: 1 }, `Bearer ${limited.apiKey}`)
  t.equal((await check()).status, 200)
  const res = await check()
  t.equal(res.status, 429)
  t.equal(res.body.detail.code, 'rate_limited')
})
