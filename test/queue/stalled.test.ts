/**
 * A SIGKILLed worker's active job is run again by another worker within seconds (not after BullMQ's 30 s lock and
 * 30 s stalled check), and stored exactly once. The workers are real child processes (workers/worker.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { sql } from 'kysely'
import { QueueName } from '../../src/queue/names.js'
import { createQueue } from '../../src/queue/queues.js'
import { eventually, postJson, startStack, type Stack, type Teardown } from '../helpers/stack.js'

const WORKER_ENTRY = fileURLToPath(new URL('../../workers/worker.ts', import.meta.url))

let stack: Stack

t.before(async () => {
  stack = await startStack(t, { env: { RATE_LIMITS: 'off' }, consumers: [] })
})

/** Starts `presence-link worker log` as a child process and resolves once its consumer is running. */
async function startWorker(t: Teardown): Promise<ChildProcess> {
  const loader = process.execArgv.filter((a) => a.includes('@tapjs/typescript'))
  const child = spawn(process.execPath, [...loader, WORKER_ENTRY, 'log'], {
    env: {
      ...process.env,
      DATABASE_URL: stack.config.databaseUrl,
      REDIS_PREFIX: stack.config.redisPrefix,
      WORKER_METRICS_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  let out = ''
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      if (out.includes('worker ready')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`worker exited with ${code} before it was ready: ${out.slice(-2000)}`)))
  })
  return child
}

t.test('a job active in a SIGKILLed worker is stored by the next worker within seconds, exactly once', async (t) => {
  const queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  t.teardown(() => queue.close())
  // Started before the lock: a starting worker migrates, which would wait for the lock too.
  const first = await startWorker(t)
  let unlock!: () => void
  const released = new Promise<void>((resolve) => (unlock = resolve))
  let locked!: () => void
  const lockTaken = new Promise<void>((resolve) => (locked = resolve))
  // A write lock on log_entries from another session holds the worker's insert, so its job stays active.
  const holder = stack.db.connection().execute(async (conn) => {
    await sql`LOCK TABLES log_entries WRITE`.execute(conn)
    locked()
    await released
    await sql`UNLOCK TABLES`.execute(conn)
  })
  t.teardown(async () => {
    unlock()
    await holder
  })
  await lockTaken
  const res = await postJson(`${stack.api}/log/server`, { event_type: 'killed_mid_job', description: 'held by a lock' }, `Bearer ${stack.apiKey}`)
  t.equal(res.status, 200)
  await eventually(async () => ((await queue.getActiveCount()) === 1 ? true : undefined), 10_000, 'the job active in the first worker')
  first.kill('SIGKILL')
  await new Promise((resolve) => first.once('exit', resolve))
  const killedAt = Date.now()
  unlock()
  await holder
  await startWorker(t)
  const readyAt = Date.now()
  const row = await eventually(
    () => stack.db.selectFrom('log_entries').selectAll().where('event_type', '=', 'killed_mid_job').executeTakeFirst(),
    // The old 30 s lock would still be held by the dead worker here (a worker starts in well under 30 s).
    10_000,
    'the entry stored by the second worker within 10 s of its start',
  )
  t.equal(row.description, 'held by a lock')
  t.comment(`stored ${Date.now() - killedAt} ms after the SIGKILL, ${Date.now() - readyAt} ms after the second worker was ready`)
  const count = await stack.db.selectFrom('log_entries').select((eb) => eb.fn.countAll<number>().as('n')).where('event_type', '=', 'killed_mid_job').executeTakeFirstOrThrow()
  t.equal(Number(count.n), 1, 'stored exactly once')
  t.equal(await queue.getFailedCount(), 0, 'not failed for stalling')
})
