/**
 * `node dist/tools/bench/log-store.js` (after `npm run build:tools`): the storing half of log ingestion on its own, as
 * after an outage, when every game server flushes what it buffered. The log queue is paused; `--events` events are
 * queued in `log-batch` jobs of `--batch` events through the front's own batcher and batch adder; the queue is
 * resumed and the real worker (from dist/) stores the backlog. Each run prints the stored events per second and
 * the CPU microseconds per stored event of the worker, the MySQL server (when it is local) and Redis. No front or
 * load generator shares the machine while the backlog drains, so the figures move less than log-ingest.js's, which
 * makes it the one to compare worker builds with.
 *
 * Options: `--runs N` (3), `--events N` (60,000 per run), `--batch N` (30, about the front's batches at 10,000 events
 * per second).
 */
import { randomUUID } from 'node:crypto'
import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import { createLogBatcher } from '../../src/queue/log-batcher.js'
import type { LogJob } from '../../src/queue/model/jobs.js'
import { QueueName } from '../../src/queue/names.js'
import { createBatchAdder, createQueue } from '../../src/queue/queues.js'
import { closeHttp } from '../harness/http.js'
import { cpuSeconds } from '../harness/proc-sampler.js'
import { createBenchLog, runMain, stopAll, stopOnSignals } from '../harness/processes.js'
import { waitFor } from '../harness/readiness.js'
import { createScratch } from '../harness/scratch.js'
import { fixed, int, median, table } from '../harness/stats.js'
import { startBenchEnv, type BenchEnv } from './measurements/bench-env.js'

const log = createBenchLog('log-store')

/** One run: how long the backlog took to store and the CPU seconds each process used meanwhile. */
interface StoreRun {
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

async function storeRun(bench: BenchEnv, events: number, batch: number, warmUp = false): Promise<StoreRun> {
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
  if (!warmUp) log(`${int(events)} events in batches of ${batch}: stored in ${fixed(seconds)} s (${int(events / seconds)}/s)`)
  return { seconds, worker: end.worker - start.worker, mysql: end.mysql - start.mysql, redis: end.redis - start.redis }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      events: { type: 'string', default: '60000' },
      batch: { type: 'string', default: '30' },
    },
  })
  const events = Number(values.events)
  const batch = Number(values.batch)
  const scratch = await createScratch({ stem: 'benchstore', poolSize: 4, env: { FRONT_WORKERS: '1', ROBLOX_USERS_API: 'http://127.0.0.1:9', RATE_LIMITS: 'off' } })
  try {
    const { env: bench } = await startBenchEnv(scratch, { queues: [QueueName.Log], serverCpu: true })
    await storeRun(bench, Math.min(5000, events), batch, true)
    const runs: StoreRun[] = []
    for (let run = 1; run <= Number(values.runs); run++) runs.push(await storeRun(bench, events, batch))
    const us = (pick: (r: StoreRun) => number) => fixed(median(runs.map((r) => (pick(r) * 1e6) / events)), 1)
    console.log(
      [
        '',
        `Stored from a paused backlog of ${int(events)} events in log-batch jobs of ${batch}, median of ${runs.length} runs:`,
        '',
        table(
          ['stored/s', 'worker, µs CPU per event', 'MySQL server, µs per event', 'redis-server, µs per event', 'runs, stored/s'],
          [[int(median(runs.map((r) => events / r.seconds))), us((r) => r.worker), us((r) => r.mysql), us((r) => r.redis), runs.map((r) => int(events / r.seconds)).join(', ')]],
        ),
      ].join('\n'),
    )
  } finally {
    await stopAll()
    closeHttp()
    await scratch.remove()
  }
}

stopOnSignals(log)
runMain('log-store', main)
