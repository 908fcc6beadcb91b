/**
 * Jobs are never parked for infrastructure: a log job whose MariaDB is unreachable keeps retrying past the old
 * 8 attempts and is stored once MariaDB is back; an invalid payload fails at once.
 */
import t from 'tap'
import type { RetryPolicy } from '../../src/core/failure-kind.js'
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
