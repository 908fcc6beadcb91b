/**
 * A SIGKILLed worker's active job is run again by another, already running worker within seconds (not after
 * BullMQ's 30 s lock and 30 s stalled check), and stored exactly once. The workers are real child processes
 * (workers/worker.ts); the job (the front's batch holding the event) is held active mid-commit by a row lock on the
 * event's dedupe key.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import t from 'tap'
import { parseApiKey } from '../../src/auth/api-key.js'
import { idempotentLogJobId } from '../../src/queue/log-idempotency.js'
import type { LogBatch } from '../../src/queue/model/log-batch.js'
import { JobName, QueueName } from '../../src/queue/names.js'
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

t.test('a job active in a SIGKILLed worker is stored by the other worker within seconds, exactly once', async (t) => {
  const queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  t.teardown(() => queue.close())
  const first = await startWorker(t)
  // The event's job id follows from its Idempotency-Key, so another session can lock its dedupe key beforehand: the
  // worker's insert then waits on that row lock and the job stays active in the first worker.
  const jobId = idempotentLogJobId(parseApiKey(stack.apiKey)!.id, 'held-event-1')
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let locked!: () => void
  const lockTaken = new Promise<void>((resolve) => (locked = resolve))
  const holder = stack.db.connection().execute(async (conn) => {
    await sql`SET SESSION innodb_lock_wait_timeout = 120`.execute(conn)
    await sql`BEGIN`.execute(conn)
    await sql`INSERT INTO log_entries (dedupe_key, category, event_type, description, source, received_at)
      VALUES (${`job:log:${jobId}`}, 'server', 'lock_holder', 'x', 'test', NOW())`.execute(conn)
    locked()
    await released
    await sql`ROLLBACK`.execute(conn)
  })
  t.teardown(async () => {
    release()
    await holder
  })
  await lockTaken
  const res = await postJson(`${stack.api}/log/server`, { event_type: 'killed_mid_job', description: 'held by a row lock' }, `Bearer ${stack.apiKey}`, {
    'idempotency-key': 'held-event-1',
  })
  t.equal(res.status, 200)
  const holding = await eventually(async () => {
    const active = await queue.getJobs(['active'])
    return active.find((j) => (j.data as LogBatch).events?.some((e) => e.id === jobId))
  }, 10_000, 'the batch holding the event active in the first worker')
  t.equal(holding.name, JobName.LogBatch)
  // The second worker starts while the first holds the job (its start does not touch the locked row).
  await startWorker(t)
  t.equal(await queue.getJobState(holding.id!), 'active', 'still held by the first worker')
  first.kill('SIGKILL')
  await new Promise((resolve) => first.once('exit', resolve))
  const killedAt = Date.now()
  release()
  await holder
  const row = await eventually(
    () => stack.db.selectFrom('log_entries').selectAll().where('event_type', '=', 'killed_mid_job').executeTakeFirst(),
    // BullMQ's default 30 s lock would still be held by the dead worker at this point.
    15_000,
    'the entry stored by the second worker within 15 s of the kill',
  )
  t.equal(row.description, 'held by a row lock')
  t.comment(`stored ${Date.now() - killedAt} ms after the SIGKILL`)
  const count = await stack.db.selectFrom('log_entries').select((eb) => eb.fn.countAll<number>().as('n')).where('event_type', 'in', ['killed_mid_job', 'lock_holder']).executeTakeFirstOrThrow()
  t.equal(Number(count.n), 1, 'stored exactly once')
  t.equal(await queue.getFailedCount(), 0, 'not failed for stalling')
})
