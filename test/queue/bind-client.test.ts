/** The front's bind client against real BullMQ queues: the timeout path, result validation and the retry policy. */
import { QueueEvents, Worker } from 'bullmq'
import t from 'tap'
import { BIND_ATTEMPTS, createBindClient, InvalidBindResultError } from '../../src/queue/bind-client.js'
import { QueueName } from '../../src/queue/names.js'
import { createQueue, createQueueEvents } from '../../src/queue/queues.js'
import { openRedis } from '../../src/runtime/storage.js'
import { startStack, type Teardown } from '../helpers/stack.js'

const JOB = { code: 'ABCD', platformUsername: 'Bind_Client', platformUserId: '7', source: 'test', requestId: 'r1' }

t.test('the bind client', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const queueRedis = await openRedis(stack.ctx, 'request', 'bind-client-queue')
  let n = 0
  // A fresh BullMQ prefix per case, so one case's worker never takes another case's job.
  const setup = async (t: Teardown, timeoutMs: number, processor?: () => Promise<unknown>) => {
    const prefix = `${stack.ctx.keys.bullPrefix}:case${++n}`
    const queue = createQueue(QueueName.Bind, queueRedis, prefix)
    const events = createQueueEvents(QueueName.Bind, await openRedis(stack.ctx, 'worker', `case${n}-events`), prefix)
    await events.waitUntilReady()
    t.teardown(() => Promise.all([queue.close(), events.close()]))
    if (processor !== undefined) {
      const worker = new Worker(QueueName.Bind, processor, { connection: await openRedis(stack.ctx, 'worker', `case${n}-worker`), prefix })
      t.teardown(() => worker.close())
    }
    return { queue, submit: createBindClient({ queue, events, timeoutMs }) }
  }

  t.test('without a worker the wait ends at the timeout with null (the front answers 503 bind_timeout)', async (t) => {
    const { queue, submit } = await setup(t, 200)
    t.equal(await submit(JOB), null)
    const [job] = await queue.getJobs(['waiting'])
    t.same(job?.data, JOB, 'the job stays queued for a worker to pick up later')
    t.equal(job?.opts.attempts, BIND_ATTEMPTS, 'with the bind retry policy')
  })

  t.test('a valid result comes back as the worker returned it', async (t) => {
    const { submit } = await setup(t, 5000, async () => ({ status: 'bound', platformUsername: 'Bind_Client' }))
    t.same(await submit(JOB), { status: 'bound', platformUsername: 'Bind_Client' })
  })

  t.test('a completion the event stream missed (its connection away, as in a Redis failover) is found at the deadline', async (t) => {
    const prefix = `${stack.ctx.keys.bullPrefix}:missed`
    const queue = createQueue(QueueName.Bind, queueRedis, prefix)
    // An event stream that never reads: every completion event goes by it.
    const deaf = new QueueEvents(QueueName.Bind, { connection: await openRedis(stack.ctx, 'worker', 'missed-events'), prefix, autorun: false })
    await deaf.waitUntilReady()
    const worker = new Worker(QueueName.Bind, async () => {
      await new Promise((resolve) => setTimeout(resolve, 300))
      return { status: 'bound', platformUsername: 'Bind_Client' }
    }, { connection: await openRedis(stack.ctx, 'worker', 'missed-worker'), prefix })
    t.teardown(() => Promise.all([queue.close(), deaf.close(), worker.close()]))
    const submit = createBindClient({ queue, events: deaf, timeoutMs: 2000 })
    t.same(await submit({ ...JOB, requestId: 'r-missed' }), { status: 'bound', platformUsername: 'Bind_Client' }, 'answered bound, not timed out')
  })

  t.test("another bind's completion under the same id never answers this one (the id counter after a failover)", async (t) => {
    const prefix = `${stack.ctx.keys.bullPrefix}:counter`
    const queue = createQueue(QueueName.Bind, queueRedis, prefix)
    const events = createQueueEvents(QueueName.Bind, await openRedis(stack.ctx, 'worker', 'counter-events'), prefix)
    await events.waitUntilReady()
    t.teardown(() => Promise.all([queue.close(), events.close()]))
    const worker = new Worker(QueueName.Bind, async () => ({ status: 'bound', platformUsername: 'Someone_Else' }), {
      connection: await openRedis(stack.ctx, 'worker', 'counter-worker'),
      prefix,
    })
    const submit = createBindClient({ queue, events, timeoutMs: 1500 })
    t.same(await submit({ ...JOB, code: 'SOME', requestId: 'r-someone' }), { status: 'bound', platformUsername: 'Someone_Else' })
    await worker.close()
    // A new primary whose copy lacks the id counter's last increments hands the same ids out again.
    await queueRedis.del(`${prefix}:${QueueName.Bind}:id`)
    t.equal(await submit({ ...JOB, requestId: 'r-mine' }), null, 'no worker took this bind: it times out, never "bound" from the other one')
  })

  t.test('an invalid result is a clear error, not a cast', async (t) => {
    const { submit } = await setup(t, 5000, async () => ({ status: 'linked' }))
    await t.rejects(submit(JOB), InvalidBindResultError)
    await t.rejects(submit(JOB), { message: /^bind job bind-[0-9a-f-]{36} finished with an invalid result/ })
  })

  t.test('a job that failed for good rejects with its reason', async (t) => {
    const { submit } = await setup(t, 5000, async () => {
      throw new Error('worker exploded')
    })
    await t.rejects(submit({ ...JOB, requestId: 'r2' }), { message: /worker exploded/ })
  })
})
