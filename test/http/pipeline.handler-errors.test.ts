/**
 * A route handler that fails: a bug (a TypeError, thrown before or after its first await) is a 500 `internal_error`
 * with the error shape and its stack in the log; a dependency failing (Redis's "Connection is closed.", a refused
 * connection) is a 503 `service_unavailable` with Retry-After. Neither ends the process. The front is built with the
 * real app and one dependency made to fail on purpose.
 */
import t from 'tap'
import { createFrontApp, type FrontDeps } from '../../src/http/server.js'
import { createClientIpResolver } from '../../src/http/client-ip.js'
import { pino } from 'pino'
import { testConfig, uniqueName } from '../helpers/stack.js'

const KEY = 'handler-errors-bootstrap-key-0123456789abcdef'

function bug(): never {
  throw new TypeError("Cannot read properties of undefined (reading 'x')")
}

t.test('a failing handler', async (t) => {
  const lines: Array<Record<string, unknown>> = []
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) })
  const deps: FrontDeps = {
    config: testConfig(uniqueName(), { RATE_LIMITS: 'off' }),
    log,
    // callbacks: a bug after the first await
    lookup: async () => {
      await Promise.resolve()
      return bug()
    },
    // every keyed route: a bug thrown synchronously inside the verifier
    verifyKey: (authorization) => (authorization === `Bearer ${KEY}` ? Promise.resolve({ ok: true, name: 'k', id: '1' }) : bug()),
    rateLimit: async () => ({ ok: true }),
    clientIp: createClientIpResolver([]),
    submitBind: async () => null,
    // log: Redis lost mid-request (ioredis's words)
    submitLog: async () => {
      throw new Error('Connection is closed.')
    },
    submitLogs: async () => {
      throw new Error('Connection is closed.')
    },
    // readyz: a refused connection
    checkReady: async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' })
    },
  }
  const app = createFrontApp(deps)
  await app.listen(0, '127.0.0.1')
  t.teardown(() => app.close())
  const origin = `http://127.0.0.1:${app.port}`

  t.test('a bug in callbacks is a plain-text 500, logged with its stack', async (t) => {
    const res = await fetch(`${origin}/api/v1/callbacks/AB12`)
    t.equal(res.status, 500)
    t.equal(await res.text(), 'internal error\n')
    const logged = lines.find((l) => l.msg === 'unhandled error' && l.route === 'callbacks')
    t.match(logged, { level: 50, err: { type: 'TypeError', stack: /TypeError: Cannot read properties/ } })
  })

  t.test('a bug thrown synchronously in a JSON route is a JSON 500 in the error shape', async (t) => {
    const res = await fetch(`${origin}/api/v1/bind`, { method: 'POST', headers: { authorization: 'Bearer other' }, body: '{}' })
    t.equal(res.status, 500)
    t.same(await res.json(), { detail: { status: 'error', code: 'internal_error', message: 'internal error' } })
    t.equal(res.headers.get('retry-after'), null, 'a bug is not something to retry')
  })

  t.test('Redis lost while a log request is queued is a 503 queue_unavailable with Retry-After', async (t) => {
    const res = await fetch(`${origin}/api/v1/log/server`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ event_type: 'boot', description: 'up' }),
    })
    t.equal(res.status, 503)
    t.equal(res.headers.get('retry-after'), '5')
    t.same(await res.json(), { detail: { status: 'error', code: 'queue_unavailable', message: 'the service cannot accept this right now; retry shortly' } })
  })

  t.test('a refused connection in readyz is a 503 service_unavailable, logged without a stack', async (t) => {
    const res = await fetch(`${origin}/readyz`)
    t.equal(res.status, 503)
    t.equal(res.headers.get('retry-after'), '5')
    t.same(await res.json(), { detail: { status: 'error', code: 'service_unavailable', message: 'temporarily unavailable; retry shortly' } })
    const logged = lines.find((l) => l.msg === 'request failed: a dependency failed' && l.route === 'readyz')
    t.match(logged, { level: 50, err: 'connect ECONNREFUSED 127.0.0.1:6379' })
  })

  t.test('after all of it the front still answers', async (t) => {
    t.equal((await fetch(`${origin}/healthz`)).status, 200)
  })
})
