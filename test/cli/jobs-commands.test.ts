/**
 * One vocabulary for queues and consumers: `jobs --queue` takes a queue's name or the name of the consumer that reads
 * it, as `presence-link worker` and the docs name them, against real Redis and BullMQ.
 */
import t from 'tap'
import { jobsCommand } from '../../src/cli/in-process.js'
import { CONSUMER_QUEUES, QueueName, queuesNamed } from '../../src/queue/names.js'
import { createNotifyConsumer } from '../../src/queue/notify.js'
import { createQueue } from '../../src/queue/queues.js'
import { CONSUMERS } from '../../src/queue/model/consumer-policy.js'
import { openRedis } from '../../src/runtime/storage.js'
import { eventually, startStack, type Stack } from '../helpers/stack.js'

const DELIVERY_NOTE =
  'note: delivery reads no queue: it posts stored log entries; `presence-link destinations list` counts those that failed and `presence-link logs replay` sends them again'

t.test('the mapping', async (t) => {
  t.test('every consumer of presence-link worker is named, and every queue has exactly one consumer', async (t) => {
    for (const consumer of CONSUMERS) t.ok(Object.hasOwn(CONSUMER_QUEUES, consumer), consumer)
    for (const queue of Object.values(QueueName)) {
      t.equal(Object.values(CONSUMER_QUEUES).filter((queues) => (queues as readonly string[]).includes(queue)).length, 1, queue)
    }
  })

  t.test('a name means its queue, or the queues its consumer reads; anything else means nothing', async (t) => {
    const cases: Array<[string, readonly string[] | undefined]> = [
      ['bind', ['bind']],
      ['log', ['log']],
      ['audit', ['audit']],
      ['notify', ['notify']],
      ['delivery', []],
      ['gateway', ['notify']],
      ['Notify', undefined],
      ['worker', undefined],
      ['toString', undefined],
      ['__proto__', undefined],
      ['', undefined],
    ]
    for (const [name, queues] of cases) t.same(queuesNamed(name), queues, JSON.stringify(name))
  })
})

t.test('jobs --queue against real queues', async (t) => {
  let stack: Stack
  t.before(async () => {
    stack = await startStack(t, { front: false, consumers: [] })
  })

  t.test('a notice the gateway could never send is listed and re-driven under notify and under gateway', async (t) => {
    const queue = createQueue(QueueName.Notify, stack.redis, stack.ctx.keys.bullPrefix)
    t.teardown(() => queue.close())
    // An invalid notice (as a producer of another version might write): refused on its first attempt.
    await queue.add('bound', { code: 'nope' }, { jobId: 'bad-notice-1' })
    const notifier = createNotifyConsumer({ connection: await openRedis(stack.ctx, 'worker', 'notify-test'), prefix: stack.ctx.keys.bullPrefix, concurrency: 1, send: async () => undefined })
    void notifier.run()
    await eventually(async () => ((await queue.getJobState('bad-notice-1')) === 'failed' ? true : undefined), 10_000, 'the notice failed')
    await notifier.close()

    for (const name of ['notify', 'gateway']) {
      const out = await jobsCommand(stack.ctx, ['failed', '--queue', name])
      t.equal(out.exitCode, 0, name)
      t.equal(out.lines.length, 2, name)
      t.match(out.lines[0], /^notify\tbad-notice-1\tbound\t1 attempt\taccepted \d+s ago, failed \d+s ago\tinvalid bound notice: /, name)
      t.equal(out.lines[1], '1 failed job', name)
    }
    t.same(await jobsCommand(stack.ctx, ['failed', '--queue', 'delivery']), { lines: [DELIVERY_NOTE, 'no failed jobs'], exitCode: 0 })
    t.same(await jobsCommand(stack.ctx, ['failed', '--queue', 'bind']), { lines: ['no failed jobs'], exitCode: 0 })
    t.same(await jobsCommand(stack.ctx, ['redrive', '--queue', 'delivery', 'bad-notice-1']), { lines: [DELIVERY_NOTE, 'bad-notice-1\tno such job in delivery', 'redriven 0 jobs'], exitCode: 1 })
    t.same(await jobsCommand(stack.ctx, ['redrive', '--queue', 'delivery', '--all']), { lines: [DELIVERY_NOTE, 'redriven 0 jobs'], exitCode: 0 })
    t.same(await jobsCommand(stack.ctx, ['redrive', '--queue', 'gateway', 'bad-notice-1']), { lines: ['notify\tbad-notice-1\tback to wait', 'redriven 1 job'], exitCode: 0 })
    t.equal(await queue.getJobState('bad-notice-1'), 'waiting')
  })

  t.test('a name that is neither a queue nor a consumer is refused with what there is', async (t) => {
    const refusal = (cmd: string, name: string) => [
      `error: --queue takes a queue (bind, log, audit, notify) or the consumer that reads it (delivery: none; push: none; gateway: notify), not ${JSON.stringify(name)}`,
      `usage: presence-link jobs ${cmd}`,
      `run \`presence-link jobs ${cmd.split(' ')[0]!} --help\` for details`,
    ]
    t.same(await jobsCommand(stack.ctx, ['failed', '--queue', 'mail']), { lines: refusal('failed [--queue QUEUE] [--limit N]', 'mail'), exitCode: 64 })
    t.same(await jobsCommand(stack.ctx, ['redrive', '--queue', 'NOTIFY', '--all']), { lines: refusal('redrive [ID...] [--queue QUEUE] [--all]', 'NOTIFY'), exitCode: 64 })
  })
})
