/**
 * Jobs are never parked for infrastructure: a log job whose MariaDB is unreachable keeps retrying past the old
 * 8 attempts and is stored once MariaDB is back; an invalid payload fails at once, an unknown error after a few
 * attempts, and `presence-link jobs failed|redrive` list and re-drive them.
 */
import { sql } from 'kysely'
import t from 'tap'
import { jobsCommand } from '../../src/cli/in-process.js'
import type { RetryPolicy } from '../../src/queue/model/failure-kind.js'
import { createLogger } from '../../src/lib/logger.js'
import { QueueName } from '../../src/queue/names.js'
import { createQueue } from '../../src/queue/queues.js'
import { startConsumers } from '../../src/runtime/consumers.js'
import { createProcessContext } from '../../src/runtime/process-context.js'
import { eventually, postJson, startStack, type Stack } from '../helpers/stack.js'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js'

// Short delays so that many attempts fit in a few seconds; the shape (unlimited for infrastructure) is the real one.
const FAST: RetryPolicy = { baseDelayMs: 50, maxDelayMs: 200, unknownAttempts: 3, jitter: 0 }

let stack: Stack
let proxy: TcpProxy

t.before(async () => {
  stack = await startStack(t, { env: { RATE_LIMITS: 'off' }, consumers: [] })
  proxy = await startTcpProxy('127.0.0.1', 3306)
  // The log worker reaches MariaDB only through the proxy, so the test can take MariaDB away from it alone.
  const config = { ...stack.config, databaseUrl: stack.config.databaseUrl.replace(':3306/', `:${proxy.port}/`) }
  const ctx = createProcessContext('worker', config, createLogger('worker', config.logLevel))
  t.teardown(async () => {
    await ctx.shutdown.run('test done')
    await proxy.close()
  })
  await startConsumers(ctx, ['log'], undefined, { retry: FAST })
})

t.test('a log job retries while MariaDB is unreachable, past the old 8 attempts, and is stored once it is back', async (t) => {
  const queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  t.teardown(() => queue.close())
  proxy.cut()
  const res = await postJson(`${stack.api}/log/server`, { event_type: 'outage_evt', description: 'during the outage' }, `Bearer ${stack.apiKey}`)
  t.same({ status: res.status, body: res.body }, { status: 200, body: { status: 'logged', category: 'server' } })
  const job = await eventually(async () => {
    const [found] = await queue.getJobs(['wait', 'delayed', 'active', 'failed'])
    return found !== undefined && found.attemptsMade >= 12 ? found : undefined
  }, 30_000, 'a 12th failed attempt')
  t.not(await job.getState(), 'failed', 'still retrying after 12 attempts')
  t.equal(await queue.getFailedCount(), 0, 'nothing parked as failed')
  t.match(job.failedReason, /ECONNREFUSED|Connection lost|closed|ECONNRESET|PROTOCOL/i, 'the attempts failed on the connection')
  proxy.restore()
  const row = await eventually(
    () => stack.db.selectFrom('log_entries').selectAll().where('event_type', '=', 'outage_evt').executeTakeFirst(),
    15_000,
    'the entry stored after the outage',
  )
  t.equal(row.description, 'during the outage')
  const count = await stack.db.selectFrom('log_entries').select((eb) => eb.fn.countAll<number>().as('n')).where('event_type', '=', 'outage_evt').executeTakeFirstOrThrow()
  t.equal(Number(count.n), 1, 'stored exactly once')
  t.equal(await queue.getFailedCount(), 0)
})

t.test('an invalid payload fails at once; jobs failed lists it and jobs redrive moves it back', async (t) => {
  const queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  t.teardown(() => queue.close())
  // A job no worker can read (as a producer of another version might write): refused on its first attempt.
  await queue.add('log', { category: 'server', eventType: 'bad_payload' }, { jobId: 'bad-payload-1' })
  await eventually(async () => ((await queue.getJobState('bad-payload-1')) === 'failed' ? true : undefined), 10_000, 'the job failed')
  const job = await queue.getJob('bad-payload-1')
  t.equal(job?.attemptsMade, 1, 'one attempt, no retries')
  const listed = await jobsCommand(stack.ctx, ['failed', '--queue', 'log'])
  t.equal(listed.exitCode, 0)
  t.match(listed.lines[0], /^log\tbad-payload-1\tlog\t1 attempt\taccepted \d+s ago, failed \d+s ago\tinvalid log job: /)
  t.equal(listed.lines.at(-1), '1 failed job')
  const redriven = await jobsCommand(stack.ctx, ['redrive', 'bad-payload-1'])
  t.same(redriven, { lines: ['log\tbad-payload-1\tback to wait', 'redriven 1 job'], exitCode: 0 })
  // Still invalid: it fails again at once, and stays listed.
  await eventually(async () => ((await queue.getJobState('bad-payload-1')) === 'failed' ? true : undefined), 10_000, 'the job failed again')
  await queue.remove('bad-payload-1')
})

t.test('an unknown error (a table missing) fails after a few attempts; once fixed, jobs redrive --all stores the entry once', async (t) => {
  const queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  t.teardown(() => queue.close())
  await sql`RENAME TABLE log_entries TO log_entries_moved`.execute(stack.db)
  let renamed = true
  t.teardown(async () => {
    if (renamed) await sql`RENAME TABLE log_entries_moved TO log_entries`.execute(stack.db)
  })
  t.equal((await postJson(`${stack.api}/log/server`, { event_type: 'bug_evt', description: 'table gone' }, `Bearer ${stack.apiKey}`)).status, 200)
  const [failed] = await eventually(async () => {
    const jobs = await queue.getFailed()
    return jobs.length > 0 ? jobs : undefined
  }, 10_000, 'the job failed')
  t.equal(failed!.attemptsMade, FAST.unknownAttempts, 'retried up to the unknown-error limit, then failed')
  t.match(failed!.failedReason, /log_entries/)
  const listed = await jobsCommand(stack.ctx, ['failed'])
  // The event went in the front's batch of one, which fails as a whole (every entry of it refused).
  t.match(listed.lines[0], new RegExp(`^log\\t${failed!.id}\\tlog-batch\\t3 attempts\\t`))
  t.equal(listed.lines.at(-1), '1 failed job')
  await sql`RENAME TABLE log_entries_moved TO log_entries`.execute(stack.db)
  renamed = false
  t.same(await jobsCommand(stack.ctx, ['redrive', '--all']), { lines: [`log\t${failed!.id}\tback to wait`, 'redriven 1 job'], exitCode: 0 })
  await eventually(
    () => stack.db.selectFrom('log_entries').selectAll().where('event_type', '=', 'bug_evt').executeTakeFirst(),
    10_000,
    'the entry stored after the redrive',
  )
  t.same(await jobsCommand(stack.ctx, ['failed']), { lines: ['no failed jobs'], exitCode: 0 })
})

t.test('jobs redrive refuses a bad command line and reports ids it cannot redrive', async (t) => {
  t.equal((await jobsCommand(stack.ctx, ['redrive'])).lines[0], 'error: jobs redrive takes job IDs or --all (not both)')
  t.equal((await jobsCommand(stack.ctx, ['redrive'])).exitCode, 64)
  t.equal((await jobsCommand(stack.ctx, ['redrive', '--all', 'x'])).exitCode, 64)
  t.equal((await jobsCommand(stack.ctx, ['failed', '--queue', 'mail'])).lines[0], 'error: --queue takes a queue (bind, log, audit, notify) or the consumer that reads it (delivery: none; push: none; gateway: notify), not "mail"')
  t.same(await jobsCommand(stack.ctx, ['redrive', 'no-such-job']), { lines: ['no-such-job\tno such job', 'redriven 0 jobs'], exitCode: 1 })
})
