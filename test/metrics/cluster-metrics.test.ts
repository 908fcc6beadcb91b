/**
 * Front metrics summed over node:cluster workers at each scrape, with one worker or several (a killed worker and the
 * scrapes during its restart: cluster-metrics.restart.test.ts).
 */
import t from 'tap'
import { sampleValue, scrape } from '../helpers/prometheus-text.js'
import { callbacks200, getOnNewConnection, startFrontProcess } from '../helpers/front-process.js'

// Slow on a busy machine (processes that load the TypeScript sources, or many runs): more than tap's 120 s per file.
t.setTimeout(300_000)

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
  // Up to 30 s by the clock, not by a count of tries: on a loaded machine a scrape during the restart can take long.
  let rest = sent
  let lastError = ''
  for (const until = Date.now() + 30_000; Date.now() < until && rest === sent; ) {
    await new Promise((r) => setTimeout(r, 50))
    try {
      rest = callbacks200(await scrape(front.metrics))
    } catch (err) {
      // a replacement worker that is still starting can make one scrape fail; try again
      lastError = (err as Error).message
    }
  }
  t.ok(rest > 0 && rest < sent, `the surviving worker served part of the requests (${rest} of ${sent}${lastError === '' ? '' : `; last failed scrape: ${lastError}`})`)
})

t.test('the primary serves metrics with a single worker', async (t) => {
  const front = await startFrontProcess(t, 1)
  t.equal((await front.workerPids()).length, 1)
  for (let i = 0; i < 3; i++) t.equal(await getOnNewConnection(`${front.api}/rpc/ABCD`), 200)
  const s = await scrape(front.metrics)
  t.equal(sampleValue(s, 'presence_link_http_requests_total', { route: 'rpc', status: '200' }), 3)
  t.ok((sampleValue(s, 'process_resident_memory_bytes') ?? 0) > 0, 'default process metrics come through the aggregation')
})
