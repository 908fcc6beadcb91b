/**
 * The log processor as its BullMQ workers run it, on the real Redis and MariaDB: single jobs and `log-batch` jobs,
 * idempotent redelivery, a poison event that MySQL refuses (the rest of its batch stored, the event re-queued as a job
 * of its own that fails visibly), malformed events and payloads that can never succeed.
 */
import t from 'tap'
import { Job, type Queue } from 'bullmq'
import { createLogger } from '../../src/lib/logger.js'
import { createTransactions } from '../../src/mysql/transactions.js'
import { createLogGroupCommit } from '../../src/queue/log-group-commit.js'
import { createLogJobProcessor, type LogJobOutcome } from '../../src/queue/log-processor.js'
import type { LogJob } from '../../src/queue/model/jobs.js'
import { JobName, QueueName } from '../../src/queue/names.js'
import { createEventRequeue, createQueue } from '../../src/queue/queues.js'
import { startStack, type Stack } from '../helpers/stack.js'

let stack: Stack
let queue: Queue

t.before(async () => {
  stack = await startStack(t, { front: false, consumers: [] })
  queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  t.teardown(() => queue.close())
})

const processor = () =>
  createLogJobProcessor({
    commit: createLogGroupCommit({ storeLogEntries: (e) => createTransactions(stack.db).storeLogEntries(e), maxBytes: 1024 * 1024 }),
    requeue: createEventRequeue(new Map([[QueueName.Log as string, queue]])),
    log: createLogger('test', 'silent'),
  })

const event = (eventType: string, more: Partial<LogJob> = {}): LogJob => ({
  category: 'server',
  eventType,
  description: `${eventType} happened`,
  platformUsername: null,
  platformUserId: null,
  issuedBy: null,
  code: null,
  source: 'api:test',
  sourceIp: '127.0.0.1',
  receivedAt: Date.now(),
  ...more,
})

async function added(name: string, data: unknown, jobId?: string): Promise<Job> {
  const job = await queue.add(name, data, jobId === undefined ? {} : { jobId })
  return (await Job.fromId(queue, job.id!))!
}

const rowsOf = (eventTypes: readonly string[]) =>
  stack.db.selectFrom('log_entries').select(['id', 'event_type', 'dedupe_key']).where('event_type', 'in', [...eventTypes]).orderBy('id').execute()

t.test('a redelivered single log job (a worker crashed after the commit) stores one entry and one infraction', async (t) => {
  const { code } = await stack.codes.issue('500000000000000001')
  await stack.codes.bind(code.code, { platformUserId: '9', platformUsername: 'Crash_Test' }, { source: 'test' })
  const job = await added(JobName.Log, event('ban', { category: 'moderation', issuedBy: 'Mod', code: code.code }))
  const process = processor()
  const first = await process(job)
  const second = await process(job)
  t.same(first, { stored: 1, created: 1, infractions: 1, requeued: [] })
  t.same(second, { stored: 1, created: 0, infractions: 1, requeued: [] })
  const entries = await rowsOf(['ban'])
  t.equal(entries.length, 1)
  t.equal(entries[0]!.dedupe_key, `job:log:${job.id}`, 'a single job keeps its job id as the dedupe key')
  const infractions = await stack.db.selectFrom('infractions').selectAll().where('code', '=', code.code).execute()
  t.equal(infractions.length, 1)
  t.equal(infractions[0]!.platform_username, 'Crash_Test', 'the linked account fills what the event left out')
})

t.test('a batch is stored in its order under each event id, infractions included; run again, it stores nothing twice', async (t) => {
  const { code } = await stack.codes.issue('500000000000000002')
  await stack.codes.bind(code.code, { platformUserId: '10', platformUsername: 'Batch_Kick' }, { source: 'test' })
  const types = Array.from({ length: 40 }, (_, i) => `batch_order_${String(i).padStart(2, '0')}`)
  const events = types.map((type, i) => ({
    id: `evt-order-${i}`,
    event: i === 7 ? event(type, { category: 'moderation', code: code.code }) : event(type, i === 8 ? { category: 'moderation', code: 'ZZZZ' } : {}),
  }))
  const job = await added(JobName.LogBatch, { events })
  const process = processor()
  const first = (await process(job)) as LogJobOutcome
  t.same(first, { stored: 40, created: 40, infractions: 1, requeued: [] })
  const rows = await rowsOf(types)
  t.same(rows.map((r) => r.event_type), types, 'ids rise in the order of the batch')
  t.same(rows.map((r) => r.dedupe_key), events.map((e) => `job:log:${e.id}`), 'each entry keyed by its event id')
  t.same(await process(job), { stored: 40, created: 0, infractions: 1, requeued: [] }, 'a redelivered batch creates nothing')
  t.equal((await rowsOf(types)).length, 40)
  const infractions = await stack.db.selectFrom('infractions').selectAll().where('code', '=', code.code).execute()
  t.equal(infractions.length, 1, 'one infraction, for the event naming the live code')
})

t.test('the same event id twice in one batch (a retried request) is stored once', async (t) => {
  const job = await added(JobName.LogBatch, {
    events: [
      { id: 'idem-twice', event: event('batch_twice') },
      { id: 'idem-twice', event: event('batch_twice') },
    ],
  })
  t.same(await processor()(job), { stored: 2, created: 1, infractions: 0, requeued: [] })
  t.equal((await rowsOf(['batch_twice'])).length, 1)
})

t.test('a poison event: the rest of the batch is stored, and the event is re-queued alone, where it fails with the reason', async (t) => {
  // The payload schema takes any username; the column takes 32 characters: MySQL refuses this one event (strict mode).
  const types = Array.from({ length: 25 }, (_, i) => `poison_batch_${String(i).padStart(2, '0')}`)
  const events = types.map((type, i) => ({ id: `evt-poison-${i}`, event: event(type, i === 13 ? { platformUsername: 'P'.repeat(40) } : {}) }))
  const job = await added(JobName.LogBatch, { events })
  const process = processor()
  const outcome = (await process(job)) as LogJobOutcome
  t.same(outcome, { stored: 24, created: 24, infractions: 0, requeued: ['evt-poison-13'] })
  t.same((await rowsOf(types)).map((r) => r.event_type), types.filter((_, i) => i !== 13), 'every other event, in order')
  const alone = await Job.fromId(queue, 'evt-poison-13')
  t.ok(alone, 'the poison event is a job of its own, under its event id')
  t.equal(alone!.name, JobName.Log)
  t.same(alone!.data, events[13]!.event)
  await t.rejects(process(alone!), { message: /Data too long for column 'platform_username'/ }, 'alone, it fails with MySQL\'s reason')
  t.same(await process(job), { stored: 24, created: 0, infractions: 0, requeued: ['evt-poison-13'] }, 'run again: nothing twice, the re-queue a no-op')
  t.equal((await queue.getJobs(['wait'])).filter((j) => j.id === 'evt-poison-13').length, 1)
})

t.test('a malformed event in a batch is re-queued alone and fails there at once; the others are stored', async (t) => {
  const job = await added(JobName.LogBatch, {
    events: [
      { id: 'evt-good-1', event: event('malformed_neighbour_1') },
      { id: 'evt-bad-1', event: { category: 'server', eventType: 'no description' } },
      { id: 'evt-good-2', event: event('malformed_neighbour_2') },
    ],
  })
  const process = processor()
  t.same(await process(job), { stored: 2, created: 2, infractions: 0, requeued: ['evt-bad-1'] })
  const alone = (await Job.fromId(queue, 'evt-bad-1'))!
  await t.rejects(process(alone), { name: 'UnrecoverableError', message: /^invalid log job/ })
})

t.test('payloads that can never succeed fail without retries', async (t) => {
  const process = processor()
  await t.rejects(process(await added(JobName.Log, { category: 'nope' })), { name: 'UnrecoverableError', message: /^invalid log job/ })
  await t.rejects(process(await added(JobName.LogBatch, { events: [] })), { name: 'UnrecoverableError', message: /^invalid log batch/ })
  await t.rejects(process(await added(JobName.LogBatch, { events: [{ id: 'has:colon', event: event('x') }] })), { name: 'UnrecoverableError', message: /^invalid log batch/ })
})
