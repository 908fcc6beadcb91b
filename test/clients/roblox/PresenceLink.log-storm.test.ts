/**
 * The Roblox module's log queue (clients/roblox/PresenceLink.lua, its Logs section) against a service whose log limits
 * are far smaller than the module's budgets, run by lua5.1 against the real service: a 429 storm (each Retry-After
 * honoured, each batch sent again under the same Idempotency-Key), and an events budget smaller than a batch (413:
 * split, under new keys, and kept to from then on). MySQL holds every event exactly once. The queue's normal work is
 * in PresenceLink.logs.test.ts, failures of the service in PresenceLink.log-faults.test.ts.
 */
import t from 'tap'
import { runLuaScenario } from '../../helpers/lua-scenario.js'
import { keysHeld, storedEntries, storedTwice, type LogRequest } from '../../helpers/roblox-logs.js'
import { startStack } from '../../helpers/stack.js'

// The limits under test make the module wait by design: room for a machine at half speed.
t.setTimeout(240_000)

t.test('a 429 storm', async (t) => {
  const WINDOW = 4
  const stack = await startStack(t, { env: { RATE_LIMITS: `log=5/${WINDOW},log_events=250/${WINDOW}` } })
  const env = { BASE_URL: stack.api, API_KEY: stack.apiKey, WINDOW: String(WINDOW) }

  t.test('a 429 storm: each Retry-After honoured, each batch sent again under its key, nothing lost or stored twice', async (t) => {
    const out = await runLuaScenario('logs-storm.lua', { ...env, TAG: 'storm' }, 150_000)
    t.equal(out.logged, 600)
    t.match(out.stats, { received: 600, sent: 600, queuedTotal: 0, droppedTotal: 0 }, 'the queue could hold everything, so nothing was dropped')
    t.ok(out.stats.rateLimited >= 2, `a storm of 429s: ${out.stats.rateLimited}`)
    t.ok(out.stats.retries >= out.stats.rateLimited, 'each 429 sent its batch again')
    const requests: LogRequest[] = out.requests
    t.equal(requests.filter((r) => r.status === 429).length, out.stats.rateLimited)
    t.same(keysHeld(requests), { sameEvents: true, endedWith200: true, nothingAfter200: true }, 'a key always carried the same events, until its one 200')
    for (const [i, r] of requests.entries()) {
      const next = requests[i + 1]
      if (r.status === 429 && next !== undefined) {
        t.ok(r.retryAfter !== undefined && next.at >= r.at + r.retryAfter, `after a 429 with Retry-After ${r.retryAfter} the next batch waited (${(next.at - r.at).toFixed(2)} s)`)
      }
    }
    const stored = await storedEntries(stack, 'storm ')
    t.equal(stored.length, 600, 'every event stored')
    t.same(storedTwice(stored), [], 'none twice')
  })
})

t.test('an events budget smaller than a batch', async (t) => {
  const WINDOW = 2
  const stack = await startStack(t, { env: { RATE_LIMITS: `log_events=30/${WINDOW}` } })
  const env = { BASE_URL: stack.api, API_KEY: stack.apiKey }

  t.test('413 batch_too_large: split to max_events, and kept to it from then on', async (t) => {
    const out = await runLuaScenario('logs-413.lua', { ...env, TAG: 'split', WINDOW: String(WINDOW) })
    const requests: LogRequest[] = out.requests
    t.same(requests.map((r) => [r.events, r.status]), [[70, 413], [30, 200], [30, 200], [10, 200]], 'split into batches of max_events (30), no 429 after')
    t.equal(new Set(requests.map((r) => r.key)).size, 4, 'each new batch under a new key')
    t.equal(out.flushed, true)
    t.match(out.stats, { received: 70, sent: 70, batches: 3, droppedTotal: 0, rateLimited: 0, lastError: { httpStatus: 413, errorCode: 'batch_too_large' } })
    const stored = await storedEntries(stack, 'split ')
    t.equal(stored.length, 70)
    t.same(storedTwice(stored), [], 'none twice')
  })
})
