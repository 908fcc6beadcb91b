/**
 * The bench's ceiling answers with the front's own headers (tools/bench/ceiling-app.ts): both sides of a comparison
 * put the same bytes on the wire, except what a server writes itself (its date, the length of what it sends).
 */
import t from 'tap'
import { listenCeiling } from '../../../tools/bench/ceiling-app.js'
import { freePort } from '../../helpers/scratch.js'

t.test('the ceiling sends the body and the headers it was given, and its own date and length', async (t) => {
  const port = await freePort()
  const body = '{"code":"ÄB12"}\n'
  const given = {
    etag: '"abc"',
    'cache-control': 'no-cache',
    'x-request-id': '3a936d48-176b-4555-9009-48590904a55d',
    'ratelimit-limit': '100',
    'ratelimit-remaining': '99',
    'ratelimit-reset': '10',
    // What a server writes itself is not copied.
    date: 'Thu, 01 Jan 1970 00:00:00 GMT',
    'content-length': '999',
    'content-type': 'application/json',
  }
  const app = await listenCeiling(port, { callbacks: { text: body, headers: given }, rpc: { text: 'rpc\n', headers: { etag: '"r"' } } })
  t.teardown(() => void app.close())

  const res = await fetch(`http://127.0.0.1:${port}/api/v1/callbacks/AB12`)
  t.equal(res.status, 200)
  t.equal(await res.text(), body, 'the body, as UTF-8')
  t.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8')
  t.equal(res.headers.get('content-length'), String(Buffer.byteLength(body)), 'its own length')
  t.not(res.headers.get('date'), given.date, 'its own date')
  for (const name of ['etag', 'cache-control', 'x-request-id', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'] as const) {
    t.equal(res.headers.get(name), given[name], name)
  }
  const rpc = await fetch(`http://127.0.0.1:${port}/api/v1/rpc/AB12`)
  t.equal(await rpc.text(), 'rpc\n')
  t.equal(rpc.headers.get('etag'), '"r"')
  t.equal(rpc.headers.get('ratelimit-limit'), null, 'each route its own headers')
})

t.test('given a log answer, the ceiling reads and parses each event and answers it; a body that is not JSON gets a 400', async (t) => {
  const port = await freePort()
  const answer = '{"status":"logged","category":"server"}'
  const none = { text: '', headers: {} }
  const app = await listenCeiling(port, { callbacks: none, rpc: none, log: { text: answer, headers: { 'x-request-id': 'r-1', 'content-length': '1' } } })
  t.teardown(() => void app.close())

  const post = (body: string) => fetch(`http://127.0.0.1:${port}/api/v1/log/server`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const ok = await post('{"event_type":"join","description":"Player joined"}')
  t.equal(ok.status, 200)
  t.equal(await ok.text(), answer, "the service's own answer")
  t.equal(ok.headers.get('content-type'), 'application/json; charset=utf-8')
  t.equal(ok.headers.get('x-request-id'), 'r-1', 'its headers')
  t.equal(ok.headers.get('content-length'), String(answer.length), 'its own length')
  const bad = await post('{"event_type":')
  t.equal(bad.status, 400, 'the body was parsed')
  t.equal(await bad.text(), '{"error":"invalid_json"}')

  const otherPort = await freePort()
  const without = await listenCeiling(otherPort, { callbacks: none, rpc: none })
  t.teardown(() => void without.close())
  t.equal((await fetch(`http://127.0.0.1:${otherPort}/api/v1/log/server`, { method: 'POST', body: '{}' })).status, 404, 'without a log answer, no log route')
})
