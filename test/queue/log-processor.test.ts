/** The log processor as its BullMQ workers run it: idempotent redelivery and payloads that can never succeed. */
import t from 'tap'
import { Job } from 'bullmq'
import { JobName, QueueName } from '../../src/queue/names.js'
import { createQueue } from '../../src/queue/queues.js'
import { createTransactions } from '../../src/mysql/transactions.js'
import { createLogJobProcessor } from '../../src/queue/log-processor.js'
import { startStack } from '../helpers/stack.js'

t.test('a redelivered log job (a worker crashed after the insert) stores one entry and one infraction', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const { code } = await stack.codes.issue('500000000000000001')
  await stack.codes.bind(code.code, { platformUserId: '9', platformUsername: 'Crash_Test' }, { source: 'test' })
  const queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  t.teardown(() => queue.close())
  const added = await queue.add(JobName.Log, {
    category: 'moderation', eventType: 'ban', description: 'd', platformUsername: null, platformUserId: null,
    issuedBy: 'Mod', code: code.code, source: 'api:test', sourceIp: '127.0.0.1', receivedAt: Date.now(),
  })
  const job = (await Job.fromId(queue, added.id!))!
  const process = createLogJobProcessor({ transactions: createTransactions(stack.db) })
  const first = await process(job)
  const second = await process(job)
  t.equal(first.created, true)
  t.equal(second.created, false)
  t.equal(second.entryId, first.entryId)
  t.equal(first.infraction, true)
  const entries = await stack.db.selectFrom('log_entries').selectAll().where('event_type', '=', 'ban').execute()
  t.equal(entries.length, 1)
  const infractions = await stack.db.selectFrom('infractions').selectAll().execute()
  t.equal(infractions.length, 1)
  t.equal(infractions[0]!.platform_username, 'Crash_Test', 'the linked account fills what the event left out')
})

t.test('a payload that can never succeed fails without retries', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  t.teardown(() => queue.close())
  const added = await queue.add(JobName.Log, { category: 'nope' })
  const job = (await Job.fromId(queue, added.id!))!
  await t.rejects(createLogJobProcessor({ transactions: createTransactions(stack.db) })(job), { name: 'UnrecoverableError', message: /^invalid log job/ })
})
