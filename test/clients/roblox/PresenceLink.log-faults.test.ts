/**
 * The Roblox module's log queue (clients/roblox/PresenceLink.lua, its Logs section) when the service does not answer
 * or cannot take a batch, run by lua5.1 against the real service: connections refused, an answer lost after the
 * service stored the batch, the service's Redis down (503). Each time the batch goes again, after a back-off, under
 * the same Idempotency-Key, and MySQL holds every event exactly once. The queue's normal work is in
 * PresenceLink.logs.test.ts, the service's limits in PresenceLink.log-storm.test.ts.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { privateRedis } from '../../helpers/parts.js'
import { runLuaScenario } from '../../helpers/lua-scenario.js'
import { keysHeld, storedEntries, storedTwice, type LogRequest } from '../../helpers/roblox-logs.js'
import { startStack } from '../../helpers/stack.js'

// Back-offs and Retry-After make the module wait by design: room for a machine at half speed.
t.setTimeout(240_000)

t.test('no answer, a lost answer, Redis down', async (t) => {
  const redis = await privateRedis(t)
  const stack = await startStack(t, { env: { REDIS_URL: redis.url } })
  const env = { BASE_URL: stack.api, API_KEY: stack.apiKey }

  t.test('no answer: the same batch again after a back-off, under the same key; a lost answer stores nothing twice', async (t) => {
    const out = await runLuaScenario('logs-retry.lua', { ...env, TAG: 'retry' })
    const refused: LogRequest[] = out.refused.requests
    t.same(refused.map((r) => [r.refused, r.status ?? null]), [[true, null], [true, null], [false, 200]], 'refused twice, then through')
    t.equal(new Set(refused.map((r) => r.key)).size, 1, 'each try under the same key')
    t.ok(refused[1]!.at - refused[0]!.at >= 0.7 && refused[2]!.at - refused[1]!.at >= 1.4, 'backing off: about 1 s, then 2 s')
    t.match(out.refused.stats, { received: 5, sent: 5, retries: 2, droppedTotal: 0, lastError: { httpStatus: 0, errorCode: 'network', kind: 'log' } })
    t.same((await storedEntries(stack, 'retry refused ')).map((e) => e.description).sort(), ['retry refused 1', 'retry refused 2', 'retry refused 3', 'retry refused 4', 'retry refused 5'])

    const lost: LogRequest[] = out.lost.requests
    t.same(lost.map((r) => [r.status, r.answerLost]), [[200, true], [200, false]], 'stored, its answer lost; the retry answered 200')
    t.equal(lost[0]!.key, lost[1]!.key, 'the retry under the same key')
    t.match(out.lost.stats, { received: 7, sent: 7, retries: 1, droppedTotal: 0 })
    const stored = await storedEntries(stack, 'retry lost ')
    t.equal(stored.length, 7, 'each event stored once although the batch arrived twice')
    t.same(storedTwice(stored), [], 'none twice')
  })

  t.test("Redis down: 503, then the same batches stored once when it is back", async (t) => {
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

    const out = await runLuaScenario('logs-redis.lua', { ...env, TAG: 'redis', CONTROL_URL: `http://127.0.0.1:${(control.address() as AddressInfo).port}` }, 150_000)
    t.match(out.during, { sent: 0, lastError: { httpStatus: 503, kind: 'log' } })
    const requests: LogRequest[] = out.requests
    t.ok(requests.some((r) => r.status === 503), 'the service answered 503 while Redis was down')
    t.same(keysHeld(requests), { sameEvents: true, endedWith200: true, nothingAfter200: true }, 'each batch went again under its key until a 200')
    t.match(out.stats, { received: 12, sent: 12, queuedTotal: 0, droppedTotal: 0 })
    const stored = await storedEntries(stack, 'redis ')
    t.equal(stored.length, 12)
    t.same(storedTwice(stored), [], 'none twice')
  })
})
