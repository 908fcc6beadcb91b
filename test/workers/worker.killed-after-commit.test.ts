/**
 * The worst moment to lose a worker: its group commit has stored a burst of batched events in MySQL, but BullMQ has not
 * heard that the batches are done. The worker (a real child process, workers/worker.ts) is SIGKILLed right then; the
 * batches come back as stalled, another worker runs them again, and every event is stored exactly once. The moment
 * is made by a row lock (holding the group's INSERT) and CLIENT PAUSE WRITE on a private Redis (holding the
 * completions).
 */
import { sql } from 'kysely'
import t from 'tap'
import { parseApiKey } from '../../src/auth/api-key.js'
import { idempotentLogJobId } from '../../src/queue/log-idempotency.js'
import { QueueName } from '../../src/queue/names.js'
import { createQueue } from '../../src/queue/queues.js'
import { entry, privateRedis, startPart } from '../helpers/parts.js'
import { eventually, postJson, startStack, type Stack, type Teardown } from '../helpers/stack.js'

const EVENTS = 60
const HELD = 30

function startWorker(t: Teardown, stack: Stack) {
  return startPart(t, entry('workers/worker.ts'), {
    DATABASE_URL: stack.config.databaseUrl,
    REDIS_URL: stack.config.redisUrl,
    REDIS_PREFIX: stack.config.redisPrefix,
    WORKER_METRICS_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
  }, ['log'])
}

const storedCount = async (stack: Stack) =>
  Number((await stack.db.selectFrom('log_entries').select((eb) => eb.fn.countAll<number>().as('n')).where('event_type', '=', 'after_commit').executeTakeFirstOrThrow()).n)

t.test('SIGKILLed between its commit and BullMQ: the batches run again elsewhere and every event is stored once', async (t) => {
  const redis = await privateRedis(t)
  const stack = await startStack(t, { env: { REDIS_URL: redis.url, RATE_LIMITS: 'off' }, consumers: [] })
  const heldKey = `job:log:${idempotentLogJobId(parseApiKey(stack.apiKey)!.id, 'held-after-commit')}`

  // Another session inserts the held event's dedupe key first and keeps it uncommitted: the worker's group INSERT
  // waits on that row, with every batch active in the worker.
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let locked!: () => void
  const lockTaken = new Promise<void>((resolve) => (locked = resolve))
  const holder = stack.db.connection().execute(async (conn) => {
    await sql`SET SESSION innodb_lock_wait_timeout = 120`.execute(conn)
    await sql`BEGIN`.execute(conn)
    await sql`INSERT INTO log_entries (dedupe_key, category, event_type, description, source, received_at)
      VALUES (${heldKey}, 'server', 'lock_holder', 'x', 'test', NOW())`.execute(conn)
    locked()
    await released
    await sql`ROLLBACK`.execute(conn)
  })
  t.teardown(async () => {
    release()
    await holder
  })
  await lockTaken

  const answers = await Promise.all(
    Array.from({ length: EVENTS }, (_, i) =>
      postJson(`${stack.api}/log/server`, { event_type: 'after_commit', description: `after commit #${i}` }, `Bearer ${stack.apiKey}`, i === HELD ? { 'idempotency-key': 'held-after-commit' } : {}),
    ),
  )
  t.same([...new Set(answers.map((a) => a.status))], [200])
  const queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  t.teardown(() => queue.close())
  const batches = (await queue.getJobs(['wait'])).length

  const first = startWorker(t, stack)
  await first.waitFor((e) => e.msg === 'worker ready', 60_000, 'the first worker ready')
  await eventually(async () => {
    const counts = await queue.getJobCounts('wait', 'active')
    return counts.wait === 0 && counts.active === batches ? true : undefined
  }, 10_000, `all ${batches} batches active in the first worker`)
  t.equal(await storedCount(stack), 0, 'nothing stored while the INSERT waits')

  // From here BullMQ hears nothing from the worker (no completion, no lock renewal); MySQL is not paused.
  await stack.redis.call('CLIENT', 'PAUSE', '60000', 'WRITE')
  release()
  await holder
  await eventually(async () => ((await storedCount(stack)) === EVENTS ? true : undefined), 15_000, 'every event committed by the first worker')
  await first.stop('SIGKILL')
  await stack.redis.call('CLIENT', 'UNPAUSE')

  const second = startWorker(t, stack)
  await second.waitFor((e) => e.msg === 'worker ready', 60_000, 'the second worker ready')
  await eventually(async () => {
    const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'completed')
    return counts.completed === batches && (counts.wait ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0) === 0 ? true : undefined
  }, 30_000, 'the stalled batches run again and completed')
  const rows = await stack.db.selectFrom('log_entries').select('description').where('event_type', '=', 'after_commit').execute()
  t.equal(rows.length, EVENTS, 'stored exactly once each')
  t.equal(new Set(rows.map((r) => r.description)).size, EVENTS)
  t.equal(await queue.getFailedCount(), 0, 'nothing failed')
})
