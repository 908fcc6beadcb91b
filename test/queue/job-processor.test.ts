/** The job wrapper against real BullMQ jobs: validation first, a PermanentFailure or a bad payload fails without retries. */
import { Job } from 'bullmq'
import t from 'tap'
import * as v from 'valibot'
import { PermanentFailure } from '../../src/queue/model/permanent-failure.js'
import { createJobProcessor, type JobMeta } from '../../src/queue/job-processor.js'
import { createQueue } from '../../src/queue/queues.js'
import { QueueName } from '../../src/queue/names.js'
import { startStack } from '../helpers/stack.js'

const PayloadSchema = v.object({ n: v.number() })

t.test('the job wrapper', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  t.teardown(() => queue.close())
  const jobOf = async (data: unknown) => (await Job.fromId(queue, (await queue.add('x', data)).id!))!

  t.test('hands the handler validated data and the job meta', async (t) => {
    const seen: Array<[unknown, JobMeta]> = []
    const job = await jobOf({ n: 2, extra: 'dropped' })
    const result = await createJobProcessor('test job', PayloadSchema, async (data, meta) => {
      seen.push([data, meta])
      return data.n * 2
    })(job)
    t.equal(result, 4)
    t.same(seen, [[{ n: 2 }, { id: job.id, queueName: QueueName.Log, attemptsMade: 0 }]])
  })

  t.test('a payload that fails the schema fails without retries and never reaches the handler', async (t) => {
    let called = false
    const processor = createJobProcessor('test job', PayloadSchema, async () => {
      called = true
    })
    await t.rejects(processor(await jobOf({ n: 'two' })), { name: 'UnrecoverableError', message: /^invalid test job: / })
    t.equal(called, false)
  })

  t.test('a PermanentFailure becomes UnrecoverableError with its message', async (t) => {
    const processor = createJobProcessor('test job', PayloadSchema, async () => {
      throw new PermanentFailure('the code can never be bound')
    })
    await t.rejects(processor(await jobOf({ n: 1 })), { name: 'UnrecoverableError', message: 'the code can never be bound' })
  })

  t.test('any other error is left for BullMQ to retry with backoff', async (t) => {
    const processor = createJobProcessor('test job', PayloadSchema, async () => {
      throw new Error('MySQL went away')
    })
    await t.rejects(processor(await jobOf({ n: 1 })), { name: 'Error', message: 'MySQL went away' })
  })
})
