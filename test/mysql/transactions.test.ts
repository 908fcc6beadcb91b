/**
 * storeLogEntries on the real MariaDB: one multi-row INSERT in the given order, idempotent per dedupe key (within a
 * group, across groups, and when two workers race for the same entries), with the infractions of moderation entries
 * naming a live code in the same transaction.
 */
import t from 'tap'
import { disableDestination, lockDestinationCategories, setDestination, unsetDestination } from '../../src/mysql/destination-rows.js'
import type { NewLogEntry } from '../../src/mysql/log-entry-rows.js'
import { createTransactions, type Transactions } from '../../src/mysql/transactions.js'
import { startStack, type Stack } from '../helpers/stack.js'

let stack: Stack
let transactions: Transactions

t.before(async () => {
  stack = await startStack(t, { front: false, consumers: [] })
  transactions = createTransactions(stack.db)
})

const entry = (key: string, more: Partial<NewLogEntry> = {}): NewLogEntry => ({
  dedupeKey: `job:log:${key}`,
  category: 'server',
  eventType: key,
  description: `about ${key}`,
  source: 'api:test',
  receivedAt: new Date('2026-11-25T12:00:00.123Z'),
  ...more,
})

const rows = (prefix: string) =>
  stack.db.selectFrom('log_entries').selectAll().where('event_type', 'like', `${prefix}%`).orderBy('id').execute()

t.test('a group is stored in its order with every field; stored again, nothing is created', async (t) => {
  const group = [
    entry('order_a', { platformUsername: 'Builderman', platformUserId: '156', issuedBy: 'Script', sourceIp: '10.0.0.1', data: { k: 1 } }),
    entry('order_b', { category: 'ingame', description: 'line\nbreak \u{1F600} \'quoted\' \\ back' }),
    entry('order_c', { category: 'moderation', code: 'QQQQ' }),
  ]
  t.same(await transactions.storeLogEntries(group), { created: [true, true, true], infraction: [false, false, false] })
  const stored = await rows('order_')
  t.same(stored.map((r) => r.event_type), ['order_a', 'order_b', 'order_c'])
  t.equal(stored[0]!.platform_username, 'Builderman')
  t.equal(String(stored[0]!.platform_user_id), '156')
  t.equal(stored[0]!.source_ip, '10.0.0.1')
  t.equal(stored[0]!.data, '{"k":1}')
  t.equal(stored[0]!.received_at.toISOString(), '2026-11-25T12:00:00.123Z')
  t.equal(stored[1]!.description, 'line\nbreak \u{1F600} \'quoted\' \\ back', 'escaping and four-byte characters survive')
  t.equal(stored[2]!.code, 'QQQQ')
  t.same(await transactions.storeLogEntries(group), { created: [false, false, false], infraction: [false, false, false] })
  t.equal((await rows('order_')).length, 3)
})

t.test('a key twice in one group, or already stored, is stored once', async (t) => {
  await transactions.storeLogEntries([entry('twice_old')])
  const out = await transactions.storeLogEntries([entry('twice_new'), entry('twice_old'), entry('twice_new')])
  t.same(out.created, [true, false, false])
  t.same((await rows('twice_')).map((r) => r.event_type), ['twice_old', 'twice_new'])
})

t.test('two workers storing overlapping groups at once: each entry once, both succeed', async (t) => {
  const keys = Array.from({ length: 200 }, (_, i) => `race_${String(i).padStart(3, '0')}`)
  const a = keys.slice(0, 150).map((k) => entry(k))
  const b = keys.slice(50).map((k) => entry(k))
  const [ra, rb] = await Promise.all([transactions.storeLogEntries(a), transactions.storeLogEntries(b)])
  const createdOf = (r: { created: boolean[] }, list: NewLogEntry[]) => list.filter((_, i) => r.created[i]).map((e) => e.eventType)
  t.same([...createdOf(ra, a), ...createdOf(rb, b)].sort(), keys, 'each entry created by exactly one of them')
  t.same((await rows('race_')).map((r) => r.event_type).sort(), keys)
})

t.test('moderation entries naming a live code become infractions in the same transaction; revoked or unknown codes do not', async (t) => {
  const { code: live } = await stack.codes.issue('600000000000000001')
  await stack.codes.bind(live.code, { platformUserId: '77', platformUsername: 'Linked_One' }, { source: 'test' })
  const { code: gone } = await stack.codes.issue('600000000000000002')
  await stack.codes.rotate('600000000000000002', { source: 'test' })
  const group = [
    entry('inf_kick', { category: 'moderation', code: live.code, issuedBy: 'ModBob' }),
    entry('inf_ingame', { category: 'ingame', code: live.code }),
    entry('inf_revoked', { category: 'moderation', code: gone.code }),
    entry('inf_unknown', { category: 'moderation', code: 'ZZZZ' }),
    entry('inf_ban', { category: 'moderation', code: live.code, platformUsername: 'Other_Name' }),
  ]
  t.same((await transactions.storeLogEntries(group)).infraction, [true, false, false, false, true])
  const infractions = await stack.db.selectFrom('infractions').selectAll().where('code', '=', live.code).orderBy('id').execute()
  t.same(
    infractions.map((i) => [i.event_type, i.chat_user_id, i.platform_username, String(i.platform_user_id), i.issued_by]),
    [
      ['inf_kick', '600000000000000001', 'Linked_One', '77', 'ModBob'],
      ['inf_ban', '600000000000000001', 'Other_Name', '77', null],
    ],
  )
  const ids = new Map((await rows('inf_')).map((r) => [r.event_type, String(r.id)]))
  t.same(infractions.map((i) => String(i.log_entry_id)), [ids.get('inf_kick'), ids.get('inf_ban')], 'attached to their entries')
  await transactions.storeLogEntries(group)
  t.equal((await stack.db.selectFrom('infractions').select('id').where('code', '=', live.code).execute()).length, 2, 'stored again: no second infraction')
})

t.test('an entry starts `none` when its category has no destination and `pending` when it has one, disabled or not', async (t) => {
  await setDestination(stack.db, 'server', { kind: 'channel', channelId: '100000000000000001' }, 'test', { enable: true })
  t.teardown(() => unsetDestination(stack.db, 'server'))
  await setDestination(stack.db, 'moderation', { kind: 'channel', channelId: '100000000000000003' }, 'test', { enable: true })
  t.teardown(() => unsetDestination(stack.db, 'moderation'))
  t.equal(await disableDestination(stack.db, 'moderation', '100000000000000003', 'Discord said 404'), true)
  const out = await transactions.storeLogEntries([entry('dest_server'), entry('dest_ingame', { category: 'ingame' }), entry('dest_mod', { category: 'moderation' })])
  t.same(out.created, [true, true, true])
  const states = Object.fromEntries((await rows('dest_')).map((r) => [r.event_type, r.delivery_state]))
  t.same(states, { dest_server: 'pending', dest_ingame: 'none', dest_mod: 'pending' }, 'a disabled destination keeps its entries for when it is enabled again; no rewrite by the delivery runner is needed')
})

t.test('a destination set while a group holds the destinations waits until the group commits', async (t) => {
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  let locked!: () => void
  const lockTaken = new Promise<void>((resolve) => (locked = resolve))
  const group = stack.db.transaction().execute(async (tx) => {
    const categories = await lockDestinationCategories(tx)
    locked()
    await held
    return categories
  })
  await lockTaken
  let setDone = false
  const set = setDestination(stack.db, 'ingame', { kind: 'channel', channelId: '100000000000000002' }, 'test', { enable: true }).then(() => {
    setDone = true
  })
  t.teardown(() => unsetDestination(stack.db, 'ingame'))
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.equal(setDone, false, 'the destination waits for the group')
  release()
  t.same([...(await group)], [], 'the group saw no destination')
  await set
  t.same([...(await lockDestinationCategories(stack.db))], ['ingame'], 'set once the group has committed')
})
