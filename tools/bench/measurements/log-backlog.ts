/**
 * The storing half of log ingestion on its own, as after an outage, when every game server flushes what it buffered:
 * the log queue is paused, events are queued in `log-batch` jobs through the front's own batcher and batch adder, the
 * queue is resumed and the running worker stores the backlog. No front or load generator shares the machine while it
 * drains, so the worker's and MySQL's CPU per event move less than under the ingestion load.
 */
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { createLogBatcher } from '../../../src/queue/log-batcher.js'
import type { LogJob } from '../../../src/queue/model/jobs.js'
import { QueueName } from '../../../src/queue/names.js'
import { createBatchAdder, createQueue } from '../../../src/queue/queues.js'
import { cpuSeconds } from '../../harness/proc-sampler.js'
import { median } from '../../harness/stats.js'
import { waitFor } from '../../harness/readiness.js'
import type { BenchEnv } from './bench-env.js'

/** Events per job: about the front's batches at 10,000 events per second. */
export const BACKLOG_BATCH = 30

/** One run: how long the backlog took to store and the CPU seconds each process used meanwhile. */
export interface BacklogRun {
  events: number
  batch: number
  seconds: number
  worker: number
  mysql: number
  redis: number
}

/** The event `i` of a run, as the front would have queued it (a description of its own, so each is told apart). */
function eventOf(eventType: string, i: number): LogJob {
  return {
    category: 'server',
    eventType,
    description: `Player Builderman joined the server (benchmark event #${i})`,
    platformUsername: 'Builderman',
    platformUserId: '156',
    issuedBy: 'ServerScript',
    code: null,
    source: 'bench',
    sourceIp: `10.0.${(i >> 8) & 255}.${i & 255}`,
    receivedAt: Date.now(),
  }
}

/**
 * Queues `events` events in log-batch jobs of `batch` on the paused log queue, resumes it, and measures the worker
 * storing them: until the queue is empty, then every row is counted (a missing one throws).
 */
export async function backlogRun(bench: BenchEnv, events: number, batch: number): Promise<BacklogRun> {
  const { scratch } = bench
  const queue = createQueue(QueueName.Log, scratch.redis, scratch.ctx.keys.bullPrefix)
  const eventType = `store_${randomUUID().slice(0, 8)}`
  await queue.pause()
  const batcher = createLogBatcher(createBatchAdder(queue), { maxEvents: batch })
  await Promise.all(Array.from({ length: events }, (_, i) => batcher.submit(eventOf(eventType, i), randomUUID())))
  const before = await scratch.db.selectFrom('log_entries').select(sql<string>`COALESCE(MAX(id), 0)`.as('id')).executeTakeFirstOrThrow()
  const cpu = async () => ({
    worker: await cpuSeconds(bench.workerPid),
    mysql: await cpuSeconds(bench.mysqlPid ?? 0),
    redis: await cpuSeconds(bench.redisPid ?? 0),
  })
  const start = await cpu()
  const started = performance.now()
  await queue.resume()
  // Polls the queue, not MySQL: counting the new rows every few ms would scan them all and load MySQL, whose CPU is
  // measured. The rows are counted once the queue is empty.
  await waitFor(
    `the log queue empty`,
    async () => {
      const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized')
      return Object.values(counts).every((n) => n === 0)
    },
    300_000,
    10,
  )
  const seconds = (performance.now() - started) / 1000
  const end = await cpu()
  const row = await scratch.db
    .selectFrom('log_entries')
    .select(sql<number>`COUNT(*)`.as('n'))
    .where('category', '=', 'server')
    .where('id', '>', before.id)
    .executeTakeFirstOrThrow()
  await queue.close()
  if (Number(row.n) !== events) throw new Error(`${events} events queued, ${Number(row.n)} stored`)
  return { events, batch, seconds, worker: end.worker - start.worker, mysql: end.mysql - start.mysql, redis: end.redis - start.redis }
}

/** CPU microseconds per stored event of each process: the medians over `runs`. */
export function backlogCpuPerEvent(runs: readonly BacklogRun[]): { worker: number; mysql: number; redis: number } {
  const per = (pick: (r: BacklogRun) => number) => median(runs.map((r) => (pick(r) * 1e6) / r.events))
  return { worker: per((r) => r.worker), mysql: per((r) => r.mysql), redis: per((r) => r.redis) }
}

/** Stored events per second: the median over `runs`. */
export function backlogRate(runs: readonly BacklogRun[]): number {
  return median(runs.map((r) => r.events / r.seconds))
}
