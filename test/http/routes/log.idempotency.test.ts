/** The Idempotency-Key header of POST /api/v1/log/{category}: a retried event is stored once, per API key. */
import t from 'tap'
import { QueueName } from '../../../src/queue/names.js'
import { createQueue } from '../../../src/queue/queues.js'
import { buildApiKeyService } from '../../../src/runtime/services.js'
import { eventually, postJson, startStack, type Stack } from '../../helpers/stack.js'

let stack: Stack
let auth: string

t.before(async () => {
  stack = await startStack(t, { env: { RATE_LIMITS: 'off' } })
  auth = `Bearer ${stack.apiKey}`
})

const log = (body: unknown, key: string | undefined, bearer = auth, category = 'server') =>
  postJson(`${stack.api}/log/${category}`, body, bearer, key === undefined ? {} : { 'idempotency-key': key })

/** Waits until the log queue has nothing left to run, then counts the entries of `eventType`. */
async function storedCount(eventType: string): Promise<number> {
  const queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  try {
    await eventually(async () => {
      const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized')
      return Object.values(c).every((n) => n === 0) ? true : undefined
    }, 10_000, 'the log queue to drain')
  } finally {
    await queue.close()
  }
  const row = await stack.db
    .selectFrom('log_entries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('event_type', '=', eventType)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

const LOGGED = { status: 200, body: { status: 'logged', category: 'server' } }

t.test('the same key twice stores one entry; both answers are logged', async (t) => {
  const body = { event_type: 'idem_twice', description: 'once' }
  const first = await log(body, '7a1c1d0e-4a4b-4a52-9e76-2f0b1c6f6a01')
  const second = await log(body, '7a1c1d0e-4a4b-4a52-9e76-2f0b1c6f6a01')
  t.same({ status: first.status, body: first.body }, LOGGED)
  t.same({ status: second.status, body: second.body }, LOGGED)
  t.equal(await storedCount('idem_twice'), 1)
})

t.test('the same key sent ten times at once stores one entry', async (t) => {
  const body = { event_type: 'idem_concurrent', description: 'at once' }
  const answers = await Promise.all(Array.from({ length: 10 }, () => log(body, 'concurrent-key-1')))
  for (const a of answers) t.same({ status: a.status, body: a.body }, LOGGED)
  t.equal(await storedCount('idem_concurrent'), 1)
})

t.test('a retry after BullMQ dropped the finished job is still stored once (the MySQL dedupe key holds for good)', async (t) => {
  const body = { event_type: 'idem_late', description: 'late retry' }
  t.same((await log(body, 'late-key')).status, 200)
  t.equal(await storedCount('idem_late'), 1)
  const queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  t.teardown(() => queue.close())
  await queue.clean(0, 10_000, 'completed')
  t.same((await log(body, 'late-key')).status, 200)
  t.equal(await storedCount('idem_late'), 1)
})

t.test('different keys store two entries; no key stores every request', async (t) => {
  const body = { event_type: 'idem_distinct', description: 'same body' }
  t.equal((await log(body, 'key-a')).status, 200)
  t.equal((await log(body, 'key-b')).status, 200)
  t.equal((await log(body, undefined)).status, 200)
  t.equal((await log(body, undefined)).status, 200)
  t.equal(await storedCount('idem_distinct'), 4)
})

t.test('the same key with a different event is refused with 422 idempotency_key_reused; the first event stands', async (t) => {
  t.equal((await log({ event_type: 'idem_reused', description: 'first' }, 'reused-key')).status, 200)
  const other = await log({ event_type: 'idem_reused', description: 'second, different' }, 'reused-key')
  t.equal(other.status, 422)
  t.same(other.body, {
    detail: {
      status: 'error',
      code: 'idempotency_key_reused',
      message: 'this Idempotency-Key was used within the last 1 h for a different event; send a new key for a new event',
    },
  })
  const otherCategory = await log({ event_type: 'idem_reused', description: 'first' }, 'reused-key', auth, 'ingame')
  t.equal(otherCategory.status, 422, 'the category is part of the event')
  t.equal(await storedCount('idem_reused'), 1)
  const row = await stack.db.selectFrom('log_entries').select('description').where('event_type', '=', 'idem_reused').executeTakeFirstOrThrow()
  t.equal(row.description, 'first')
})

t.test('keys are per API key: two game servers using the same key store two entries', async (t) => {
  const created = await buildApiKeyService(stack.db, stack.redis, stack.ctx.keys).create('second-server')
  if (!created.ok) throw new Error('could not create the second key')
  const body = { event_type: 'idem_two_servers', description: 'same key, two servers' }
  t.equal((await log(body, 'shared-key')).status, 200)
  t.equal((await log(body, 'shared-key', `Bearer ${created.key}`)).status, 200)
  t.equal(await storedCount('idem_two_servers'), 2)
})

t.test('an invalid key is refused with 400 invalid_idempotency_key and nothing is stored', async (t) => {
  const message = 'Idempotency-Key must be 1-255 visible ASCII characters (no spaces), such as a UUID'
  for (const [what, key] of [
    ['256 characters', 'k'.repeat(256)],
    ['a space inside', 'two words'],
    ['a non-ASCII byte inside', 'caf\u00e9-key'],
    ['a tab inside', 'a\tb'],
  ] as const) {
    const res = await log({ event_type: 'idem_invalid', description: what }, key)
    t.same({ status: res.status, body: res.body }, { status: 400, body: { detail: { status: 'error', code: 'invalid_idempotency_key', message } } }, what)
  }
  t.equal((await log({ event_type: 'idem_invalid', description: '255 characters' }, 'k'.repeat(255))).status, 200, '255 characters are accepted')
  t.equal(await storedCount('idem_invalid'), 1)
})
