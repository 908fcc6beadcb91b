/**
 * The Roblox module's log queue (clients/roblox/PresenceLink.lua, its Logs section) when the service does not take a
 * batch, run by lua5.1 against the real service: a 429 storm (the service's log limits made far smaller than the
 * module's budgets), no answer (connections refused), an answer lost after the service stored the batch, and the
 * service's Redis down (503). Each time the batch goes again under the same Idempotency-Key, and MySQL holds every
 * event exactly once. The queue's normal work is in PresenceLink.logs.test.ts.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { privateRedis } from '../../helpers/parts.js'
import { runLuaScenario } from '../../helpers/lua-scenario.js'
import { eventually, startStack, type Stack } from '../../helpers/stack.js'

/** A request the module made to the log route, as test/clients/roblox/harness.lua records it. */
interface LogRequest {
  category: string
  events: number
  key: string
  at: number
  status?: number
  retryAfter?: number
  refused: boolean
  answerLost: boolean
  descriptions: string[]
}

/** The stored descriptions under a prefix, once `count` rows are there. */
async function storedDescriptions(stack: Stack, prefix: string, count: number): Promise<string[]> {
  const read = async () => (await stack.db.selectFrom('log_entries').select('description').where('description', 'like', `${prefix}%`).execute()).map((r) => r.description)
  await eventually(async () => ((await read()).length >= count ? true : undefined), 30_000, `${count} rows under ${prefix}`)
  return read()
}

/** Every key's requests carried the same events, and the key's last answer (only) was a 200. */
function keysHeld(requests: LogRequest[]): { sameEvents: boolean; endedWith200: boolean; nothingAfter200: boolean } {
  const byKey = new Map<string, LogRequest[]>()
  for (const r of requests) byKey.set(r.key, [...(byKey.get(r.key) ?? []), r])
  const groups = [...byKey.values()]
  return {
    sameEvents: groups.every((g) => g.every((r) => JSON.stringify(r.descriptions) === JSON.stringify(g[0]!.descriptions))),
    endedWith200: groups.every((g) => g.at(-1)!.status === 200),
    nothingAfter200: groups.every((g) => g.filter((r) => r.status === 200).length === 1),
  }
}

t.test('a 429 storm, no answer and a lost answer', async (t) => {
  const WINDOW = 4
  const stack = await startStack(t, { env: { RATE_LIMITS: `log=5/${WINDOW},log_events=250/${WINDOW}` } })
  const env = { BASE_URL: stack.api, API_KEY: stack.apiKey, WINDOW: String(WINDOW) }

  t.test('a 429 storm: each Retry-After honoured, each batch sent again under its key, nothing lost or stored twice', async (t) => {
    const out = await runLuaScenario('logs-storm.lua', { ...env, TAG: 'storm' }, 150_000)
    t.equal(out.logged, 900)
    t.match(out.stats, { received: 900, sent: 900, queuedTotal: 0, droppedTotal: 0 }, 'the queue could hold everything, so nothing was dropped')
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
    const stored = await storedDescriptions(stack, 'storm ', 900)
    t.equal(stored.length, 900, 'every event stored')
    t.equal(new Set(stored).size, 900, 'none twice')
  })

  t.test('no answer: the same batch again after a back-off, under the same key; a lost answer stores nothing twice', async (t) => {
    const out = await runLuaScenario('logs-retry.lua', { ...env, TAG: 'retry' })
    const refused: LogRequest[] = out.refused.requests
    t.same(refused.map((r) => [r.refused, r.status ?? null]), [[true, null], [true, null], [false, 200]], 'refused twice, then through')
    t.equal(new Set(refused.map((r) => r.key)).size, 1, 'each try under the same key')
    t.ok(refused[1]!.at - refused[0]!.at >= 0.7 && refused[2]!.at - refused[1]!.at >= 1.4, 'backing off: about 1 s, then 2 s')
    t.match(out.refused.stats, { received: 5, sent: 5, retries: 2, droppedTotal: 0, lastError: { httpStatus: 0, errorCode: 'network', kind: 'log' } })
    t.same((await storedDescriptions(stack, 'retry refused ', 5)).sort(), ['retry refused 1', 'retry refused 2', 'retry refused 3', 'retry refused 4', 'retry refused 5'])

    const lost: LogRequest[] = out.lost.requests
    t.same(lost.map((r) => [r.status, r.answerLost]), [[200, true], [200, false]], 'stored, its answer lost; the retry answered 200')
    t.equal(lost[0]!.key, lost[1]!.key, 'the retry under the same key')
    t.match(out.lost.stats, { received: 7, sent: 7, retries: 1, droppedTotal: 0 })
    const stored = await storedDescriptions(stack, 'retry lost ', 7)
    t.equal(stored.length, 7, 'each event stored once although the batch arrived twice')
    t.equal(new Set(stored).size, 7)
  })
})

t.test("the service's Redis down: 503, then the same batches stored once when it is back", async (t) => {
  const redis = await privateRedis(t)
  const stack = await startStack(t, { env: { REDIS_URL: redis.url } })
  // The scenario asks for Redis back once it has seen the service answer 503.
  const control = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/redis/start') {
      void redis.start().then(() => res.writeHead(200).end(), () => res.writeHead(500).end())
    } else {
      res.writeHead(404).end()
    }
  })
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => control.close(resolve)))
  await redis.kill()

  const out = await runLuaScenario('logs-redis.lua', {
    BASE_URL: stack.api,
    API_KEY: stack.apiKey,
    TAG: 'redis',
    CONTROL_URL: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
  }, 150_000)
  t.match(out.during, { sent: 0, lastError: { httpStatus: 503, kind: 'log' } })
  const requests: LogRequest[] = out.requests
  t.ok(requests.some((r) => r.status === 503), 'the service answered 503 while Redis was down')
  t.same(keysHeld(requests), { sameEvents: true, endedWith200: true, nothingAfter200: true }, 'each batch went again under its key until a 200')
  t.match(out.stats, { received: 12, sent: 12, queuedTotal: 0, droppedTotal: 0 })
  const stored = await storedDescriptions(stack, 'redis ', 12)
  t.equal(stored.length, 12)
  t.equal(new Set(stored).size, 12, 'none twice')
})
