/**
 * The front's micro-batches on the real Redis and BullMQ: events accepted together become one `log-batch` job in their
 * order, an idle front writes at once, a busy one lingers for more while few wait, one write is in flight at a time,
 * the bounds hold, and a failed write fails every event that waited for it (and only those).
 */
import { setTimeout as delay } from 'node:timers/promises'
import { Job, type Queue } from 'bullmq'
import t from 'tap'
import { createLogBatcher } from '../../src/queue/log-batcher.js'
import type { LogJob } from '../../src/queue/model/jobs.js'
import type { LogBatch } from '../../src/queue/model/log-batch.js'
import { JobName, QueueName } from '../../src/queue/names.js'
import { createBatchAdder, createQueue } from '../../src/queue/queues.js'
import { createRedis, waitReady } from '../../src/redis/connection.js'
import { privateRedis } from '../helpers/parts.js'
import { startStack, type Stack } from '../helpers/stack.js'

let stack: Stack
let queue: Queue

t.before(async () => {
  stack = await startStack(t, { front: false, consumers: [] })
  queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  t.teardown(() => queue.close())
})

const event = (n: number, description = `event ${n}`): LogJob => ({
  category: 'server',
  eventType: 'batched',
  description,
  platformUsername: null,
  platformUserId: null,
  issuedBy: null,
  code: null,
  source: 'api:test',
  sourceIp: null,
  receivedAt: 1_700_000_000_000 + n,
})

/** The real adder, recording each batch's ids in the order the writes started and whether two overlapped. */
function recordingAdder(target: Queue) {
  const add = createBatchAdder(target)
  const batches: Array<{ batchId: string; ids: string[] }> = []
  let inFlight = 0
  let overlapped = false
  return {
    batches,
    overlapped: () => overlapped,
    add: async (batch: LogBatch, batchId: string) => {
      batches.push({ batchId, ids: batch.events.map((e) => e.id) })
      if (++inFlight > 1) overlapped = true
      try {
        await add(batch, batchId)
      } finally {
        inFlight--
      }
    },
  }
}

t.test('events submitted together are one log-batch job, in order; a lone event is written at once', async (t) => {
  const rec = recordingAdder(queue)
  const batcher = createLogBatcher(rec.add)
  await batcher.submit(event(0), 'lone-0')
  t.same(rec.batches.map((b) => b.ids), [['lone-0']], 'an idle front writes a lone event as it comes')
  const ids = Array.from({ length: 20 }, (_, i) => `together-${i}`)
  await Promise.all(ids.map((id, i) => batcher.submit(event(i), id)))
  t.same(rec.batches[1]!.ids, ids, 'twenty events of one turn: one batch, in order')
  const job = (await Job.fromId(queue, rec.batches[1]!.batchId))!
  t.equal(job.name, JobName.LogBatch)
  t.same(
    (job.data as LogBatch).events.map((e) => [e.id, (e.event as LogJob).description]),
    ids.map((id, i) => [id, `event ${i}`]),
    'the job holds each event under its id, as submitted',
  )
})

/** Resolves after `turns` turns of the event loop (a write due at the next turn has started by then). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve))
}

t.test('a busy front lingers: events that come one by one after a write share a job until enough wait', async (t) => {
  const rec = recordingAdder(queue)
  // A linger far longer than this test's steps, so whether a write has started shows which rule started it.
  const batcher = createLogBatcher(rec.add, { minEvents: 5, lingerMs: 2_000 })
  await batcher.submit(event(0), 'first')
  t.same(rec.batches.map((b) => b.ids), [['first']], 'the first event (an idle front) is written at once')
  const pending: Array<Promise<void>> = []
  for (const id of ['b', 'c', 'd', 'e']) {
    pending.push(batcher.submit(event(1), id))
    await turns(3)
  }
  t.equal(rec.batches.length, 1, 'four events, each in a turn of its own right after a write: they wait for more')
  pending.push(batcher.submit(event(1), 'f'))
  await turns(3)
  t.same(rec.batches[1]?.ids, ['b', 'c', 'd', 'e', 'f'], 'the fifth makes minEvents: written together without waiting out the linger')
  await Promise.all(pending)
  const lone = batcher.submit(event(2), 'lone')
  await turns(3)
  t.equal(rec.batches.length, 2, 'a lone event right after a write lingers')
  await lone
  t.same(rec.batches[2]?.ids, ['lone'], 'and is written when the linger ends')
  t.equal(rec.overlapped(), false, 'never two writes in flight')
})

t.test('once the linger since the last write has passed, an event is written at once', async (t) => {
  const rec = recordingAdder(queue)
  const batcher = createLogBatcher(rec.add, { minEvents: 5, lingerMs: 50 })
  await batcher.submit(event(0), 'one')
  await delay(100)
  const two = batcher.submit(event(1), 'two')
  await turns(3)
  t.same(rec.batches.map((b) => b.ids), [['one'], ['two']], 'written at the next turn, not held')
  await two
})

t.test('under a flood, one write at a time; batches follow the order of submission and respect both bounds', async (t) => {
  const rec = recordingAdder(queue)
  const batcher = createLogBatcher(rec.add, { maxEvents: 50, maxBytes: 40_000 })
  const ids: string[] = []
  const pending: Array<Promise<void>> = []
  // 400 events over a few turns of the event loop, some large (3,000 characters: about 9 KB by entryBytes).
  for (let turn = 0; turn < 4; turn++) {
    for (let i = 0; i < 100; i++) {
      const n = turn * 100 + i
      ids.push(`flood-${n}`)
      pending.push(batcher.submit(event(n, n % 10 === 0 ? 'x'.repeat(3000) : `event ${n}`), `flood-${n}`))
    }
    await new Promise((resolve) => setImmediate(resolve))
  }
  await Promise.all(pending)
  await batcher.drain()
  t.equal(rec.overlapped(), false, 'never two writes in flight')
  t.same(rec.batches.flatMap((b) => b.ids), ids, 'every event once, in submission order')
  t.ok(rec.batches.every((b) => b.ids.length <= 50), 'at most 50 events per batch')
  t.ok(rec.batches.length >= 8, `${rec.batches.length} batches`)
  const sizes = rec.batches.map((b) => b.ids.length)
  t.ok(sizes.some((n) => n < 50), `the byte bound cut some batches short: ${sizes.join(', ')}`)
})

t.test("a client's batch is one unit: never split across jobs, in its place among the single events", async (t) => {
  const rec = recordingAdder(queue)
  const batcher = createLogBatcher(rec.add, { maxEvents: 50, maxBytes: 1_000_000 })
  // Held back by a first write in flight, then: 30 singles, a unit of 40, 5 singles, a unit of 80 (over the bound), 1 single.
  const first = batcher.submit(event(0), 'head')
  const unit = (name: string, n: number) => Array.from({ length: n }, (_, i) => ({ id: `${name}-${i}`, job: event(i) }))
  const pending: Array<Promise<void>> = [first]
  // The head's write starts at the next turn; what follows is submitted while it is in flight.
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(rec.batches.length, 1, 'the head is being written')
  for (let i = 0; i < 30; i++) pending.push(batcher.submit(event(i), `a-${i}`))
  pending.push(batcher.submitAll(unit('u40', 40)))
  for (let i = 0; i < 5; i++) pending.push(batcher.submit(event(i), `b-${i}`))
  pending.push(batcher.submitAll(unit('u80', 80)))
  pending.push(batcher.submit(event(0), 'last'))
  await Promise.all(pending)
  await batcher.drain()
  const ids = rec.batches.map((b) => b.ids)
  t.same(ids[0], ['head'])
  t.same(ids[1], Array.from({ length: 30 }, (_, i) => `a-${i}`), 'the unit of 40 does not fit beside 30: it waits, whole')
  t.same(ids[2], [...Array.from({ length: 40 }, (_, i) => `u40-${i}`), ...Array.from({ length: 5 }, (_, i) => `b-${i}`)])
  t.same(ids[3], Array.from({ length: 80 }, (_, i) => `u80-${i}`), 'a unit over the bound goes alone, whole')
  t.same(ids[4], ['last'])
  t.equal(rec.batches.length, 5)
})

t.test('an empty unit resolves at once and writes nothing', async (t) => {
  const rec = recordingAdder(queue)
  const batcher = createLogBatcher(rec.add)
  await batcher.submitAll([])
  t.same(rec.batches, [])
})

t.test('a failed write fails every event that waited for it with its error, and only those', async (t) => {
  const redis = await privateRedis(t)
  const connection = createRedis(redis.url, 'request', 'batcher-test')
  connection.on('error', () => undefined)
  await waitReady(connection)
  const target = createQueue(QueueName.Log, connection, stack.ctx.keys.bullPrefix)
  target.on('error', () => undefined)
  t.teardown(async () => {
    await target.close().catch(() => undefined)
    connection.disconnect()
  })
  const batcher = createLogBatcher(createBatchAdder(target))
  await batcher.submit(event(1), 'before-kill')
  await redis.kill()
  const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => batcher.submit(event(i), `during-${i}`)))
  t.same(outcomes.map((o) => o.status), Array(10).fill('rejected'), 'each waiting request gets the failure')
  await redis.start()
  await waitReady(connection)
  await batcher.submit(event(2), 'after-restart')
  const after = await target.getJobs(['wait'])
  t.same(
    after.flatMap((j) => (j.data as LogBatch).events.map((e) => e.id)),
    ['after-restart'],
    'the restarted (empty) Redis holds only what was written after it came back',
  )
})
