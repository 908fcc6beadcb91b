/**
 * The batch form of POST /api/v1/log/{category} (`{"events": [...]}`) against the real front, queue, worker and
 * MariaDB: every event stored once, in order, labelled as single events are; each refusal answered with its exact
 * body and nothing of a refused batch stored; the Idempotency-Key covering the whole batch, however late the retry.
 */
import t from 'tap'
import { QueueName } from '../../../src/queue/names.js'
import { createQueue } from '../../../src/queue/queues.js'
import { eventually, postJson, startStack, type Stack } from '../../helpers/stack.js'

let stack: Stack
let auth: string

t.before(async () => {
  stack = await startStack(t, { env: { RATE_LIMITS: 'off' } })
  auth = `Bearer ${stack.apiKey}`
})

const post = (category: string, body: unknown, key?: string) =>
  postJson(`${stack.api}/log/${category}`, body, auth, key === undefined ? {} : { 'idempotency-key': key })

/** Waits until the log queue has nothing left to run. */
async function drained(): Promise<void> {
  const queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  try {
    await eventually(async () => {
      const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized')
      return Object.values(c).every((n) => n === 0) ? true : undefined
    }, 20_000, 'the log queue to drain')
  } finally {
    await queue.close()
  }
}

/** The stored entries whose event_type starts with `prefix`, in id order, once the queue has drained. */
async function storedWith(prefix: string) {
  await drained()
  return stack.db.selectFrom('log_entries').selectAll().where('event_type', 'like', `${prefix.replace(/_/g, '\\_')}%`).orderBy('id').execute()
}

const events = (prefix: string, n: number, extra: Record<string, unknown> = {}) =>
  Array.from({ length: n }, (_, i) => ({ event_type: `${prefix}${i}`, description: `event ${i} of ${n}`, ...extra }))

t.test('accepted batches', async (t) => {
  t.test('100 events answer logged with their count and are stored once each, in order, with every field', async (t) => {
    const before = Date.now()
    const batch = events('b100_', 100, { platform_username: 'Player_1', platform_user_id: 12345, issued_by: 'Telemetry' })
    const res = await post('ingame', { events: batch })
    t.equal(res.status, 200)
    t.same(res.body, { status: 'logged', category: 'ingame', count: 100 })
    const rows = await eventually(async () => {
      const r = await storedWith('b100_')
      return r.length === 100 ? r : undefined
    }, 20_000, 'the 100 entries')
    t.same(rows.map((r) => r.event_type), batch.map((e) => e.event_type), 'one entry per event, in the order sent')
    for (const row of rows) {
      t.equal(row.category, 'ingame')
      t.equal(row.platform_username, 'Player_1')
      t.equal(String(row.platform_user_id), '12345')
      t.equal(row.issued_by, 'Telemetry')
      t.equal(row.source, 'api:test-server')
      t.equal(row.source_ip, '127.0.0.1')
      t.ok(row.received_at.getTime() >= before - 1000 && row.received_at.getTime() <= Date.now())
    }
    t.equal(new Set(rows.map((r) => r.dedupe_key)).size, 100, 'each event has a dedupe key of its own')
    const keys = rows.map((r) => r.dedupe_key)
    t.same([...keys].sort(), keys, "the batch's dedupe keys rise in its order (they are inserted at the index's edge)")
    t.match(keys[0], /^job:log:[0-9a-f]{12}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-000$/, 'a time-ordered batch id and the index')
  })

  t.test('a batch of one, and one of 500 (the most), are accepted', async (t) => {
    t.same((await post('server', { events: events('b1_', 1) })).body, { status: 'logged', category: 'server', count: 1 })
    t.same((await post('server', { events: events('b500_', 500) })).body, { status: 'logged', category: 'server', count: 500 })
    t.equal((await storedWith('b1_')).length, 1)
    t.equal((await storedWith('b500_')).length, 500)
  })

  t.test('a moderation batch makes one infraction per event with a valid linked code, none for the others', async (t) => {
    const { code } = await stack.codes.issue('300000000000000031')
    await stack.codes.bind(code.code, { platformUserId: '3131', platformUsername: 'Batch_Breaker' }, { source: 'test' })
    const res = await post('moderation', {
      events: [
        { event_type: 'bmod_kick', description: 'first', code: code.code, issued_by: 'ModA' },
        { event_type: 'bmod_note', description: 'no code' },
        { event_type: 'bmod_ban', description: 'second', code: code.code, issued_by: 'ModB' },
        { event_type: 'bmod_unknown', description: 'unknown code', code: 'ZZ99' },
      ],
    })
    t.same(res.body, { status: 'logged', category: 'moderation', count: 4 })
    const infractions = await eventually(async () => {
      const rows = await stack.db.selectFrom('infractions').selectAll().where('code', '=', code.code).orderBy('id').execute()
      return rows.length === 2 ? rows : undefined
    }, 20_000, 'two infractions')
    t.same(infractions.map((i) => [i.event_type, i.issued_by, i.chat_user_id, i.platform_username]), [
      ['bmod_kick', 'ModA', '300000000000000031', 'Batch_Breaker'],
      ['bmod_ban', 'ModB', '300000000000000031', 'Batch_Breaker'],
    ])
    t.equal((await storedWith('bmod_')).length, 4)
    const unknown = await stack.db.selectFrom('infractions').select('id').where('event_type', '=', 'bmod_unknown').execute()
    t.same(unknown, [], 'an unknown code makes no infraction')
  })

  t.test('unknown fields of the body and of its events are ignored, as for single events', async (t) => {
    const res = await post('server', { events: [{ event_type: 'bextra_0', description: 'd', colour: 'red' }], sent_by: 'script' })
    t.same(res.body, { status: 'logged', category: 'server', count: 1 })
    t.equal((await storedWith('bextra_')).length, 1)
  })
})

t.test('refused batches store nothing', async (t) => {
  t.test('an empty list is 422 empty_batch', async (t) => {
    const res = await post('server', { events: [] })
    t.equal(res.status, 422)
    t.same(res.body, { detail: { status: 'error', code: 'empty_batch', message: 'the batch is empty: send 1 to 500 events in "events"' } })
  })

  t.test('events that is not a list is 422 validation_failed naming the field', async (t) => {
    const res = await post('server', { events: { event_type: 'x', description: 'y' } })
    t.equal(res.status, 422)
    t.same(res.body, {
      detail: { status: 'error', code: 'validation_failed', message: 'invalid body: events must be a list of log events', issues: [{ field: 'events', message: 'must be a list of log events' }] },
    })
  })

  t.test('501 events is 413 batch_too_large with the maximum', async (t) => {
    const res = await post('server', { events: events('b501_', 501) })
    t.equal(res.status, 413)
    t.same(res.body, { detail: { status: 'error', code: 'batch_too_large', message: 'the batch has 501 events: send at most 500 per request', max_events: 500 } })
    t.equal((await storedWith('b501_')).length, 0)
  })

  t.test('a body over 1 MiB is 413 body_too_large; a single event keeps its 16 KiB', async (t) => {
    const huge = await post('server', { events: events('bhuge_', 300, { description: 'd'.repeat(3900) }) })
    t.equal(huge.status, 413)
    t.same(huge.body, { detail: { status: 'error', code: 'body_too_large', message: 'the body must be at most 1048576 bytes', max_bytes: 1048576 } })
    const single = await post('server', { event_type: 'bsingle_big', description: 'd'.repeat(17_000) })
    t.equal(single.status, 413)
    t.same(single.body, { detail: { status: 'error', code: 'body_too_large', message: 'the body must be at most 16384 bytes', max_bytes: 16384 } })
    const fits = await post('server', { events: events('bfits_', 60, { description: 'd'.repeat(3900) }) })
    t.same(fits.body, { status: 'logged', category: 'server', count: 60 }, 'a batch of 240 KB is taken')
    t.equal((await storedWith('bhuge_')).length, 0)
    t.equal((await storedWith('bsingle_big')).length, 0)
  })

  t.test('any invalid event refuses the whole batch with 422 invalid_events naming each index and reason', async (t) => {
    const batch: unknown[] = events('binv_', 6)
    batch[1] = { event_type: 'binv_missing' }
    batch[3] = { event_type: 'binv_code', description: 'bad code', code: 'ab12' }
    batch[4] = 'not an object'
    batch[5] = { event_type: 'binv_id', description: 'x', platform_user_id: -4, platform_username: 'no spaces allowed' }
    const res = await post('moderation', { events: batch })
    t.equal(res.status, 422)
    t.same(res.body, {
      detail: {
        status: 'error',
        code: 'invalid_events',
        message: '4 invalid events, nothing was logged; event 1: description is required',
        events: [
          { index: 1, issues: [{ field: 'description', message: 'is required' }] },
          { index: 3, issues: [{ field: 'code', message: 'must be 4 characters, each A-Z or 0-9' }] },
          { index: 4, issues: [{ field: 'event', message: 'must be a JSON object' }] },
          {
            index: 5,
            issues: [
              { field: 'platform_username', message: 'must be a Roblox username: 3-20 letters, digits or _' },
              { field: 'platform_user_id', message: 'must be positive' },
            ],
          },
        ],
      },
    })
    t.equal((await storedWith('binv_')).length, 0, 'not even the valid events')
  })

  t.test('a hostile event: control characters, a 4,001-character description, emoji labels', async (t) => {
    const res = await post('server', {
      events: [
        { event_type: 'bhost_ok', description: 'fine 🎮 with\nnewline' },
        { event_type: 'bhost\u0000nul', description: 'x' },
        { event_type: 'bhost_long', description: 'y'.repeat(4001) },
      ],
    })
    t.equal(res.status, 422)
    t.same(res.body.detail.events, [
      { index: 1, issues: [{ field: 'event_type', message: 'must not contain control characters or line breaks' }] },
      { index: 2, issues: [{ field: 'description', message: 'must be at most 4000 characters' }] },
    ])
    t.equal((await storedWith('bhost')).length, 0)
  })

  t.test('an unknown category, a missing key and a bad Idempotency-Key are refused before the body is read', async (t) => {
    t.equal((await post('chat', { events: events('bcat_', 2) })).status, 400)
    t.equal((await postJson(`${stack.api}/log/server`, { events: events('bnokey_', 2) }, null)).status, 401)
    t.equal((await post('server', { events: events('bidem_', 2) }, 'has space')).status, 400)
    t.equal((await storedWith('bcat_')).length + (await storedWith('bnokey_')).length + (await storedWith('bidem_')).length, 0)
  })
})

t.test('Idempotency-Key covers the whole batch', async (t) => {
  t.test('a retried batch is stored once, even after BullMQ and the key claim forgot it', async (t) => {
    const batch = { events: events('bretry_', 50) }
    const first = await post('server', batch, 'batch-key-1')
    t.same(first.body, { status: 'logged', category: 'server', count: 50 })
    const again = await post('server', batch, 'batch-key-1')
    t.same(again.body, { status: 'logged', category: 'server', count: 50 }, 'a retry is answered as the first was')
    t.equal((await storedWith('bretry_')).length, 50)
    // Much later: the finished jobs are gone and the key's claim has expired.
    const queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
    t.teardown(() => queue.close())
    await queue.clean(0, 10_000, 'completed')
    const claims = await stack.redis.keys(`${stack.ctx.keys.prefix}:idem:*`)
    if (claims.length > 0) await stack.redis.del(...claims)
    const late = await post('server', batch, 'batch-key-1')
    t.same(late.body, { status: 'logged', category: 'server', count: 50 })
    const rows = await storedWith('bretry_')
    t.equal(rows.length, 50, 'each event stored exactly once')
    t.same(rows.map((r) => r.event_type), batch.events.map((e) => e.event_type))
  })

  t.test('ten copies of a batch sent at once are stored once', async (t) => {
    const batch = { events: events('bconc_', 20) }
    const answers = await Promise.all(Array.from({ length: 10 }, () => post('server', batch, 'batch-concurrent')))
    for (const a of answers) t.same(a.body, { status: 'logged', category: 'server', count: 20 })
    t.equal((await storedWith('bconc_')).length, 20)
  })

  t.test('the same key with a different batch, or with a single event, is 422 idempotency_key_reused', async (t) => {
    t.equal((await post('server', { events: events('breuse_', 3) }, 'batch-reused')).status, 200)
    const changed = await post('server', { events: events('breuse_', 4) }, 'batch-reused')
    t.equal(changed.status, 422)
    t.same(changed.body, {
      detail: {
        status: 'error',
        code: 'idempotency_key_reused',
        message: 'this Idempotency-Key was used within the last 1 h for a different batch; send a new key for a new batch',
      },
    })
    const single = await post('server', { event_type: 'breuse_single', description: 'x' }, 'batch-reused')
    t.equal(single.status, 422)
    t.equal(single.body.detail.code, 'idempotency_key_reused')
    t.equal((await storedWith('breuse_')).length, 3, 'only the first batch')
  })

  t.test('the same key under another category is a different batch', async (t) => {
    t.equal((await post('server', { events: events('bcatkey_', 2) }, 'batch-category')).status, 200)
    t.equal((await post('ingame', { events: events('bcatkey_', 2) }, 'batch-category')).status, 422)
    t.equal((await storedWith('bcatkey_')).length, 2)
  })
})
