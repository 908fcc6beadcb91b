/**
 * A 200 from POST /api/v1/log/{category} means the event is durably queued, batches or not: Redis (with its
 * append-only file fsynced before each reply) is SIGKILLed in the middle of a burst; restarted from that file it holds
 * every event that was answered 200, the requests whose batch could not be written got 503, and a worker then stores
 * every accepted event exactly once.
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

const EVENTS = 600
const CONNECTIONS = 40
// Redis is killed once this many events have been answered 200: the rest of the burst meets the outage.
const KILL_AFTER = 200

t.test('Redis SIGKILLed mid-burst: every event answered 200 is in the restarted Redis and stored once; the others got 503', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pl-aof-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const redis = await privateRedis(t, true, dir)
  const stack = await startStack(t, { env: { REDIS_URL: redis.url, RATE_LIMITS: 'off' }, consumers: [] })
  const auth = `Bearer ${stack.apiKey}`

  const answers = new Map<string, { status: number; code?: string }>()
  let ok = 0
  let killed: Promise<void> | undefined
  let next = 0
  const client = async () => {
    while (next < EVENTS) {
      const description = `durable#${next++}`
      const res = await postJson(`${stack.api}/log/server`, { event_type: 'durability', description }, auth).catch(() => ({ status: 0, body: {} }))
      answers.set(description, { status: res.status, code: (res.body as { detail?: { code?: string } }).detail?.code })
      if (res.status === 200 && ++ok === KILL_AFTER) killed = redis.kill()
    }
  }
  await Promise.all(Array.from({ length: CONNECTIONS }, client))
  await killed
  const accepted = [...answers].filter(([, a]) => a.status === 200).map(([d]) => d)
  const refused = [...answers].filter(([, a]) => a.status !== 200)
  t.ok(accepted.length >= KILL_AFTER, `${accepted.length} answered 200`)
  t.ok(refused.length > 0, `${refused.length} met the outage`)
  t.same(
    [...new Set(refused.map(([, a]) => `${a.status} ${a.code}`))].filter((s) => s !== '503 queue_unavailable' && s !== '503 service_unavailable'),
    [],
    'every other request got 503 queue_unavailable (its batch failed) or service_unavailable (Redis known down)',
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
    t.equal(job.name, JobName.LogBatch)
    for (const e of (job.data as LogBatch).events) inRedis.add((e.event as LogJob).description)
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
