/**
 * A 200 from POST /api/v1/log/{category} means the event is durably queued, batches or not, in the single form and the
 * batch form alike (every tenth request here is a client's batch of five). Redis keeps an append-only
 * file fsynced before each reply. After a burst answered 200, Redis is frozen (SIGSTOP) while more events arrive:
 * their batch hangs in the write, so a 200 sent now could only come before its event is in Redis. Then Redis is
 * SIGKILLed and restarted from its file: it holds every event answered 200, the requests whose batch could not be
 * written got 503 queue_unavailable, and a worker stores every accepted event exactly once. (The bootstrap API_KEY
 * is checked without Redis, so the requests reach the queue while Redis is frozen.)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createLogger } from '../../../src/lib/logger.js'
import type { LogJob } from '../../../src/queue/model/jobs.js'
import type { LogBatch } from '../../../src/queue/model/log-batch.js'
import { JobName, QueueName } from '../../../src/queue/names.js'
import { createQueue } from '../../../src/queue/queues.js'
import { startConsumers } from '../../../src/runtime/consumers.js'
import { createProcessContext } from '../../../src/runtime/process-context.js'
import { privateRedis } from '../../helpers/parts.js'
import { eventually, postJson, startStack } from '../../helpers/stack.js'

const API_KEY = 'durability-test-bootstrap-key-0123456789'
const BURST = 300
const FROZEN = 100
const FROZEN_MS = 1000

t.test('Redis frozen, then SIGKILLed: every event answered 200 is in the restarted Redis and stored once; the others got 503', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pl-aof-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const redis = await privateRedis(t, true, dir)
  const stack = await startStack(t, { env: { REDIS_URL: redis.url, RATE_LIMITS: 'off', API_KEY }, consumers: [] })
  // Request i: one event described `description`, or (every tenth) a batch of five described `description.0` to `.4`.
  const post = (description: string, i: number) => {
    const descriptions = i % 10 === 0 ? Array.from({ length: 5 }, (_, k) => `${description}.${k}`) : [description]
    const body = descriptions.length === 1 ? { event_type: 'durability', description } : { events: descriptions.map((d) => ({ event_type: 'durability', description: d })) }
    return postJson(`${stack.api}/log/server`, body, `Bearer ${API_KEY}`).then(
      (res) => ({ description, descriptions, status: res.status, code: (res.body as { detail?: { code?: string } }).detail?.code }),
      () => ({ description, descriptions, status: 0, code: 'connection failed' }),
    )
  }

  const burst = await Promise.all(Array.from({ length: BURST }, (_, i) => post(`durable#${i}`, i)))
  t.same([...new Set(burst.map((a) => a.status))], [200], 'a burst, every event answered 200')

  redis.freeze()
  const answeredWhileFrozen: string[] = []
  const frozen = Array.from({ length: FROZEN }, (_, i) =>
    post(`frozen#${i}`, i).then((a) => {
      answeredWhileFrozen.push(`${a.description} ${a.status}`)
      return a
    }),
  )
  await new Promise((resolve) => setTimeout(resolve, FROZEN_MS))
  t.same(answeredWhileFrozen.filter((a) => a.endsWith(' 200')), [], 'nothing is answered 200 while its batch cannot be written')
  await redis.kill()
  const outcomes = await Promise.all(frozen)
  const accepted = [...burst, ...outcomes].filter((a) => a.status === 200).flatMap((a) => a.descriptions)
  t.same(
    [...new Set(outcomes.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.code}`))],
    ['503 queue_unavailable'],
    'the requests whose batch could not be written got 503 queue_unavailable',
  )

  await redis.start()
  const queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  t.teardown(() => queue.close())
  const queued = await eventually(async () => {
    try {
      return await queue.getJobs(['wait'])
    } catch {
      return undefined
    }
  }, 15_000, 'the restarted Redis')
  const inRedis = new Set<string>()
  for (const job of queued) {
    const events = job.name === JobName.LogBatch ? (job.data as LogBatch).events.map((e) => e.event as LogJob) : [job.data as LogJob]
    for (const e of events) inRedis.add(e.description)
  }
  t.same(accepted.filter((d) => !inRedis.has(d)), [], 'no event answered 200 is missing from Redis after the SIGKILL')

  const ctx = createProcessContext('worker', stack.config, createLogger('worker', stack.config.logLevel))
  t.teardown(() => ctx.shutdown.run('test done'))
  await startConsumers(ctx, ['log'])
  const counts = await eventually(async () => {
    const rows = await stack.db.selectFrom('log_entries').select('description').where('event_type', '=', 'durability').execute()
    const n = new Map<string, number>()
    for (const r of rows) n.set(r.description, (n.get(r.description) ?? 0) + 1)
    return accepted.every((d) => n.has(d)) ? n : undefined
  }, 20_000, 'every accepted event stored')
  t.same([...counts].filter(([, n]) => n !== 1), [], 'each stored exactly once')
})
