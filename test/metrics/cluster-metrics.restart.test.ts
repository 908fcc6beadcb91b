/**
 * The front's cluster primary counts a killed worker in presence_link_front_worker_restarts_total, and its metrics
 * endpoint keeps answering while the worker is restarted (a file of its own: with the aggregation tests it passed
 * tap's 120 s per file under CI load).
 */
import t from 'tap'
import { sampleValue, scrape, type Scrape } from '../helpers/prometheus-text.js'
import { startFrontProcess } from '../helpers/front-process.js'

// Slow on a busy machine (processes that load the TypeScript sources, or many runs): more than tap's 120 s per file.
t.setTimeout(300_000)
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
