/**
 * Front metrics summed over node:cluster workers at each scrape, and the primary's own: a worker killed is counted in
 * presence_link_front_worker_restarts_total, and the endpoint keeps answering while it is restarted.
 */
import { execFile } from 'node:child_process'
import { request } from 'node:http'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { dropEverything, testConfig, uniqueName, type Teardown } from '../helpers/stack.js'
import { sampleValue, scrape, type Scrape } from '../helpers/prometheus-text.js'
import { freePort } from '../helpers/scratch.js'
import { startEntryProcess, type EntryProcess } from '../helpers/entry-process.js'

const FRONT_ENTRY = fileURLToPath(new URL('../../src/front.ts', import.meta.url))

/** A GET on a fresh TCP connection, so the kernel picks a worker for each request (SO_REUSEPORT). */
function getOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { connection: 'close' } }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end()
  })
}

interface RunningFront {
  api: string
  metrics: string
  workerPids(): Promise<number[]>
}

/** Starts the real front entry (primary plus `workers` cluster workers) as a child process, with its TS loader. */
async function startFrontProcess(t: Teardown, workers: number): Promise<RunningFront> {
  const name = uniqueName()
  const config = testConfig(name)
  const port = await freePort()
  let front: EntryProcess | undefined
  t.teardown(async () => {
    await front?.stop()
    await dropEverything(config, name)
  })
  front = await startEntryProcess(
    FRONT_ENTRY,
    { DATABASE_URL: config.databaseUrl, REDIS_PREFIX: name, PORT: String(port), METRICS_PORT: '0', FRONT_WORKERS: String(workers), RATE_LIMITS: 'off' },
    'front',
    'front listening',
  )
  const pid = String(front.child.pid)
  return {
    api: `http://127.0.0.1:${port}/api/v1`,
    metrics: front.metrics,
    async workerPids() {
      const { stdout } = await promisify(execFile)('ps', ['-o', 'pid=', '--ppid', pid])
      return stdout.split('\n').map((s) => Number(s.trim())).filter((n) => n > 0)
    },
  }
}

const callbacks200 = (s: Scrape) => sampleValue(s, 'presence_link_http_requests_total', { route: 'callbacks', status: '200' }) ?? 0

t.test('the primary aggregates every cluster worker on METRICS_PORT', async (t) => {
  const front = await startFrontProcess(t, 2)
  const pids = await front.workerPids()
  t.equal(pids.length, 2, 'two cluster workers run')

  const sent = 40
  const statuses: number[] = []
  for (let i = 0; i < sent; i++) statuses.push(await getOnNewConnection(`${front.api}/callbacks/ABCD`))
  t.same(new Set(statuses), new Set([200]), `${sent} callbacks, each on its own connection, all answered 200`)
  const both = await scrape(front.metrics)
  t.equal(callbacks200(both), sent, 'the scrape sums the requests of both workers')
  t.equal(sampleValue(both, 'presence_link_http_request_duration_seconds_count', { route: 'callbacks' }), sent)
  t.equal(sampleValue(both, 'presence_link_codes_per_request_sum', { route: 'callbacks' }), sent)

  // Killing one worker removes its share from the sum: what remains is the other worker's part, so both had served some.
  process.kill(pids[0]!, 'SIGKILL')
  let rest = sent
  for (let i = 0; i < 200 && rest === sent; i++) {
    await new Promise((r) => setTimeout(r, 50))
    try {
      rest = callbacks200(await scrape(front.metrics))
    } catch {
      // a replacement worker that is still starting can make one scrape fail; try again
    }
  }
  t.ok(rest > 0 && rest < sent, `the surviving worker served part of the requests (${rest} of ${sent})`)
})

t.test('the primary serves metrics with a single worker', async (t) => {
  const front = await startFrontProcess(t, 1)
  t.equal((await front.workerPids()).length, 1)
  for (let i = 0; i < 3; i++) t.equal(await getOnNewConnection(`${front.api}/rpc/ABCD`), 200)
  const s = await scrape(front.metrics)
  t.equal(sampleValue(s, 'presence_link_http_requests_total', { route: 'rpc', status: '200' }), 3)
  t.ok((sampleValue(s, 'process_resident_memory_bytes') ?? 0) > 0, 'default process metrics come through the aggregation')
})

t.test('a killed front worker is counted, and every scrape answers while it is restarted', async (t) => {
  const front = await startFrontProcess(t, 2)
  const restarts = (s: Scrape) => sampleValue(s, 'presence_link_front_worker_restarts_total')
  const before = await scrape(front.metrics)
  t.equal(restarts(before), 0, 'exported at 0 before any restart')
  t.equal(before.samples.filter((s) => s.name === 'presence_link_front_worker_restarts_total').length, 1, 'once, beside the workers\' metrics')
  t.ok((sampleValue(before, 'process_resident_memory_bytes') ?? 0) > 0, 'the workers\' metrics are still there')

  const [pid] = await front.workerPids()
  process.kill(pid!, 'SIGKILL')
  // The replacement is forked 0.5 s later and loads for seconds (the TypeScript source): scrapes made meanwhile must
  // answer without it (before, each waited 5 s for the starting worker and then failed).
  const failures: string[] = []
  const counted: number[] = []
  const until = Date.now() + 8000
  while (Date.now() < until) {
    try {
      counted.push(restarts(await scrape(front.metrics)) ?? -1)
    } catch (err) {
      failures.push((err as Error).message)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  t.same(failures, [], 'every scrape answered 200 while the worker was restarted')
  t.equal(counted.at(-1), 1, 'one restart counted')
  t.ok(counted.length >= 10, `${counted.length} scrapes in 8 s`)
})
