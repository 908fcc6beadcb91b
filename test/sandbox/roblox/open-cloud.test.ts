import t from 'tap'
import { call, startSandbox, type TestLike } from '../fixtures/harness.js'
import type { Sandbox } from '../../../src/sandbox/create-sandbox.js'

const KEY = 'open-cloud-key-for-4567'
const OTHER = 'open-cloud-key-for-9999'

interface Messages {
  messages: Array<{ seq: number; universe_id: number; topic: string; message: string; at: string }>
}

async function ready(t: TestLike): Promise<Sandbox> {
  const sandbox = await startSandbox(t)
  await call(sandbox, 'POST', '/control/open-cloud', { keys: { '4567': KEY, '9999': OTHER } })
  return sandbox
}

function publish(sandbox: Sandbox, universe: string | number, body: unknown, key: string | null = KEY) {
  return call(sandbox, 'POST', `/open-cloud/cloud/v2/universes/${universe}:publishMessage`, body, key === null ? {} : { 'x-api-key': key })
}

t.test('publishMessage', async (t) => {
  t.test('accepts a message with the universe key: 200, an empty body, recorded for the control API', async (t) => {
    const sandbox = await ready(t)
    const res = await publish(sandbox, 4567, { topic: 'presence-link', message: '{"v":1,"codes":["AB12"]}' })
    t.equal(res.status, 200)
    t.equal(res.body, undefined)
    t.equal(res.headers.get('content-type'), null)
    const listed = await call<Messages>(sandbox, 'GET', '/control/open-cloud/messages?universe_id=4567')
    t.match(listed.body.messages, [{ seq: 1, universe_id: 4567, topic: 'presence-link', message: '{"v":1,"codes":["AB12"]}' }])
    t.ok(Number.isFinite(Date.parse(listed.body.messages[0]!.at)))
    t.same((await call<Messages>(sandbox, 'GET', '/control/open-cloud/messages?universe_id=9999')).body.messages, [], 'per universe')
  })

  t.test('checks x-api-key per universe, with the v2 error shape', async (t) => {
    const sandbox = await ready(t)
    const body = { topic: 'presence-link', message: 'x' }
    const missing = await publish(sandbox, 4567, body, null)
    t.equal(missing.status, 401)
    t.same(missing.body, { code: 'UNAUTHENTICATED', message: 'Invalid API Key', details: [] })
    t.equal((await publish(sandbox, 4567, body, 'not-a-key')).status, 401)
    const otherUniverse = await publish(sandbox, 4567, body, OTHER)
    t.equal(otherUniverse.status, 403)
    t.match(otherUniverse.body, { code: 'PERMISSION_DENIED', message: /universe-messaging-service:publish for universe 4567/ })
    t.equal((await publish(sandbox, 1234, body, KEY)).status, 403, 'a universe the key is not granted')
    t.same((await call<Messages>(sandbox, 'GET', '/control/open-cloud/messages?universe_id=4567')).body.messages, [], 'nothing recorded')
  })

  t.test('refuses a message over 1,024 bytes (bytes, not characters), and a bad topic or body', async (t) => {
    const sandbox = await ready(t)
    t.equal((await publish(sandbox, 4567, { topic: 'presence-link', message: 'y'.repeat(1024) })).status, 200, 'exactly 1,024 bytes')
    const over = await publish(sandbox, 4567, { topic: 'presence-link', message: 'y'.repeat(1025) })
    t.equal(over.status, 400)
    t.same(over.body, { code: 'INVALID_ARGUMENT', message: 'Message size 1025 exceeds the limit of 1024 bytes.', details: [] })
    const multibyte = await publish(sandbox, 4567, { topic: 'presence-link', message: '日'.repeat(342) })
    t.equal(multibyte.status, 400, '342 characters of 3 bytes')
    t.equal((await publish(sandbox, 4567, { topic: 'x'.repeat(81), message: 'm' })).status, 400)
    t.equal((await publish(sandbox, 4567, { topic: '', message: 'm' })).status, 400)
    t.equal((await publish(sandbox, 4567, { topic: 'presence-link' })).status, 400)
    t.equal((await publish(sandbox, 4567, 'not an object')).status, 400)
    t.equal((await publish(sandbox, 'abc', { topic: 'presence-link', message: 'm' })).status, 400)
    t.equal((await call(sandbox, 'GET', '/open-cloud/cloud/v2/universes/4567:publishMessage')).status, 404)
    t.equal((await call(sandbox, 'POST', '/open-cloud/nothing', {})).status, 404)
    t.equal((await call<Messages>(sandbox, 'GET', '/control/open-cloud/messages?universe_id=4567')).body.messages.length, 1)
  })

  t.test('answers an injected 429 (with Retry-After when asked) or 500 the next N times, then accepts again', async (t) => {
    const sandbox = await ready(t)
    const body = { topic: 'presence-link', message: 'm' }
    const set = await call(sandbox, 'POST', '/control/open-cloud', { fail: 429, times: 2, retry_after: 3 })
    t.match(set.body, { fail: 429, times: 2, retry_after: 3 })
    const first = await publish(sandbox, 4567, body)
    t.equal(first.status, 429)
    t.same(first.body, { code: 'RESOURCE_EXHAUSTED', message: 'Too many requests.', details: [] })
    t.equal(first.headers.get('retry-after'), '3')
    t.equal((await publish(sandbox, 4567, body)).status, 429)
    t.equal((await publish(sandbox, 4567, body)).status, 200)
    await call(sandbox, 'POST', '/control/open-cloud', { fail: 500, times: 1 })
    const failed = await publish(sandbox, 4567, body)
    t.equal(failed.status, 500)
    t.match(failed.body, { code: 'INTERNAL' })
    t.equal((await publish(sandbox, 4567, body)).status, 200)
    const requests = await call<{ byRoute: Record<string, number> }>(sandbox, 'GET', '/control/requests')
    t.same(requests.body.byRoute, {
      'POST /open-cloud/cloud/v2/universes/:universe:publishMessage 429': 2,
      'POST /open-cloud/cloud/v2/universes/:universe:publishMessage 200': 2,
      'POST /open-cloud/cloud/v2/universes/:universe:publishMessage 500': 1,
    })
  })

  t.test("counts each key's publishes against the owner's 5,000 a minute", async (t) => {
    const sandbox = await ready(t)
    const body = { topic: 'presence-link', message: 'm' }
    for (let i = 0; i < 5000; i += 100) {
      const batch = await Promise.all(Array.from({ length: 100 }, () => publish(sandbox, 4567, body)))
      if (batch.some((r) => r.status !== 200)) t.fail(`refused before 5,000 (${i})`)
    }
    const limited = await publish(sandbox, 4567, body)
    t.equal(limited.status, 429)
    t.match(limited.body, { code: 'RESOURCE_EXHAUSTED' })
    t.match(limited.headers.get('retry-after'), /^\d+$/)
    t.equal((await publish(sandbox, 9999, body, OTHER)).status, 200, 'another key (owner) is not limited')
  })
})

t.test('control', async (t) => {
  t.test('keys merge per universe, null removes one; bad settings are refused', async (t) => {
    const sandbox = await ready(t)
    const set = await call(sandbox, 'POST', '/control/open-cloud', { keys: { '4567': null, '1': 'k1' } })
    t.same(set.body, { keys: { '9999': OTHER, '1': 'k1' }, fail: null, times: 0, retry_after: null })
    t.equal((await publish(sandbox, 4567, { topic: 't', message: 'm' })).status, 401)
    for (const body of [{ fail: 404 }, { fail: 429, times: 0 }, { fail: 500, retry_after: -1 }, { keys: { abc: 'k' } }, { keys: { '1': '' } }, { keys: [] }]) {
      t.equal((await call(sandbox, 'POST', '/control/open-cloud', body)).status, 400, JSON.stringify(body))
    }
  })

  t.test('messages after a seq, and a universe id is required', async (t) => {
    const sandbox = await ready(t)
    for (let i = 0; i < 3; i++) await publish(sandbox, 4567, { topic: 'presence-link', message: `m${i}` })
    const after = await call<Messages>(sandbox, 'GET', '/control/open-cloud/messages?universe_id=4567&after=1')
    t.same(
      after.body.messages.map((m) => [m.seq, m.message]),
      [
        [2, 'm1'],
        [3, 'm2'],
      ],
    )
    t.equal((await call(sandbox, 'GET', '/control/open-cloud/messages')).status, 400)
    t.equal((await call(sandbox, 'GET', '/control/open-cloud/messages?universe_id=x')).status, 400)
    t.equal((await call(sandbox, 'GET', '/control/open-cloud/messages?universe_id=1&after=-1')).status, 400)
  })

  t.test('reset forgets keys, failures and messages', async (t) => {
    const sandbox = await ready(t)
    await publish(sandbox, 4567, { topic: 'presence-link', message: 'm' })
    await call(sandbox, 'POST', '/control/open-cloud', { fail: 500, times: 5 })
    await call(sandbox, 'POST', '/control/reset', {})
    t.same((await call(sandbox, 'GET', '/control/open-cloud')).body, { keys: {}, fail: null, times: 0, retry_after: null })
    t.same((await call<Messages>(sandbox, 'GET', '/control/open-cloud/messages?universe_id=4567')).body.messages, [])
  })
})
