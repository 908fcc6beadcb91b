import { request } from 'node:http'
import t from 'tap'
import { MAX_BODY_BYTES } from '../../src/sandbox/read-body.js'
import { DefaultIds } from '../../src/sandbox/world.js'
import type { Sandbox } from '../../src/sandbox/create-sandbox.js'
import { call, startSandbox } from './fixtures/harness.js'

const AUTH = { authorization: 'Bot sandbox-token' }

interface RawAnswer {
  status: number
  contentType: string | undefined
  body: unknown
}

/** Sends a raw body with node:http (fetch gives up on a request the server answers before the upload ends). */
function send(sandbox: Sandbox, method: string, path: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(sandbox.url)
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body: text === '' ? undefined : JSON.parse(text) })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function counts(sandbox: Sandbox): Promise<Record<string, number>> {
  return (await call<{ byRoute: Record<string, number> }>(sandbox, 'GET', '/control/requests')).body.byRoute
}

t.test('route matching', async (t) => {
  t.test('messages/%40original and messages/@original both reach the @original route', async (t) => {
    const sandbox = await startSandbox(t)
    const hook = await call<{ id: string; token: string }>(sandbox, 'POST', '/control/webhooks', { channel_id: DefaultIds.serverLog })
    for (const original of ['%40original', '@original']) {
      const res = await call(sandbox, 'GET', `/api/v10/webhooks/${hook.body.id}/${hook.body.token}/messages/${original}`)
      t.same(res.body, { message: 'Unknown Message', code: 10008 }, original)
    }
    await call(sandbox, 'GET', `/api/v10/webhooks/${hook.body.id}/${hook.body.token}/messages/1`)
    t.same(await counts(sandbox), {
      'GET /webhooks/:id/:token/messages/@original 404': 2,
      'GET /webhooks/:id/:token/messages/:message 404': 1,
    })
  })

  t.test('literal segments beat parameters, encoded or not, with stray slashes ignored', async (t) => {
    const sandbox = await startSandbox(t)
    for (const path of ['/api/v10/users/@me', '/api/v10/users/%40me', '/api/v10/users/@me/', '/api/v10//users//@me', '/api/v9/users/@me']) {
      const res = await call<{ id: string; verified: boolean }>(sandbox, 'GET', path, undefined, AUTH)
      t.equal(res.status, 200, path)
      t.equal(res.body.id, DefaultIds.application, path)
      t.equal(res.body.verified, true, `${path} is the current user, not GET /users/:user`)
    }
    const member = await call<{ user: { id: string } }>(sandbox, 'GET', `/api/v10/guilds/${DefaultIds.guild}/members/search?query=presence`, undefined, AUTH)
    t.same(member.body, [await call(sandbox, 'GET', `/api/v10/guilds/${DefaultIds.guild}/members/${DefaultIds.application}`, undefined, AUTH).then((r) => r.body)])
  })

  t.test('parameters are URL-decoded and may be longer than 100 characters', async (t) => {
    const sandbox = await startSandbox(t)
    const slash = await call(sandbox, 'GET', `/api/v10/channels/${DefaultIds.general}%2F`, undefined, AUTH)
    t.same(slash.body, { message: 'Unknown Channel', code: 10003 }, '%2F stays inside the id')
    const long = await call(sandbox, 'GET', `/api/v10/webhooks/1/${'t'.repeat(300)}`)
    t.same(long.body, { message: 'Unknown Webhook', code: 10015 }, 'a 300-character token still routes')
    t.same(await counts(sandbox), { 'GET /channels/:id 404': 1, 'GET /webhooks/:id/:token 404': 1 })
  })

  t.test('unknown routes answer Discord, Roblox and control 404 shapes and are counted as unmatched', async (t) => {
    const sandbox = await startSandbox(t)
    const discord: Array<[string, string]> = [
      ['GET', '/api/v10/users/%E0%A4%A'],
      ['GET', '/api/v11/users/@me'],
      ['GET', '/api/v10'],
      ['GET', '/api/v10/USERS/@me'],
      ['OPTIONS', '/api/v10/users/@me'],
      ['DELETE', '/api/v10/users/@me'],
    ]
    for (const [method, path] of discord) {
      const res = await call(sandbox, method, path, undefined, AUTH)
      t.equal(res.status, 404, `${method} ${path}`)
      t.same(res.body, { message: 'Unknown route', code: 0 }, `${method} ${path}`)
      t.equal(res.headers.get('content-type'), 'application/json')
    }
    t.same(await counts(sandbox), { 'GET (unmatched) 404': 4, 'OPTIONS (unmatched) 404': 1, 'DELETE (unmatched) 404': 1 })
    const roblox = await call(sandbox, 'GET', '/roblox/v1/nothing')
    t.equal(roblox.status, 404)
    t.same(roblox.body, { errors: [{ code: 0, message: 'NotFound' }] })
    const control = await call(sandbox, 'POST', '/control/nothing')
    t.same(control.body, { error: 'unknown control route POST /control/nothing' })
    const root = await call(sandbox, 'GET', '/')
    t.same(root.body, { error: 'nothing at /: use /api/v10, /roblox, /open-cloud, /control or a websocket upgrade' })
  })
})

t.test('request bodies', async (t) => {
  t.test('malformed JSON is each API own 400, after the route and its rate-limit bucket', async (t) => {
    const sandbox = await startSandbox(t)
    const json = { 'content-type': 'application/json' }
    const rest = await send(sandbox, 'POST', `/api/v10/channels/${DefaultIds.general}/messages`, '{"content": ', { ...AUTH, ...json })
    t.equal(rest.status, 400)
    t.same(rest.body, { message: 'The request body contains invalid JSON.', code: 50109 })
    const unknown = await send(sandbox, 'POST', '/api/v10/nothing', '{', { ...AUTH, ...json })
    t.same(unknown.body, { message: 'Unknown route', code: 0 }, 'an unknown route is 404 before the body is looked at')
    const unauthorized = await send(sandbox, 'POST', `/api/v10/channels/${DefaultIds.general}/messages`, '{', json)
    t.equal(unauthorized.status, 401, 'auth is checked before the body')
    const control = await send(sandbox, 'POST', '/control/guilds', '{', json)
    t.equal(control.status, 400)
    t.same(control.body, { error: 'body is not valid JSON' })
    const roblox = await send(sandbox, 'POST', '/roblox/v1/usernames/users', 'not json')
    t.equal(roblox.status, 400)
    t.same(roblox.body, { errors: [{ code: 0, message: 'BadRequest' }] })
    t.same(await counts(sandbox), {
      [`POST /channels/:id/messages 400`]: 1,
      'POST (unmatched) 404': 1,
      [`POST /channels/:id/messages 401`]: 1,
      'POST /roblox/v1/usernames/users 400': 1,
    })
  })

  t.test('a body at the size limit is read and one byte over it is a Discord 500', async (t) => {
    const sandbox = await startSandbox(t)
    const atLimit = Buffer.alloc(MAX_BODY_BYTES, ' ')
    atLimit.write('{}', MAX_BODY_BYTES - 2)
    const fits = await send(sandbox, 'POST', '/control/reset', atLimit, { 'content-type': 'application/json' })
    t.same(fits.body, { ok: true })
    const over = await send(sandbox, 'POST', `/api/v10/channels/${DefaultIds.general}/messages`, Buffer.alloc(MAX_BODY_BYTES + 1, ' '), AUTH)
    t.equal(over.status, 500)
    t.same(over.body, { message: '500: Internal Server Error', code: 0 })
    t.same(await counts(sandbox), {}, 'a refused body never reaches a route')
  })
})

t.test('rate-limit buckets', async (t) => {
  t.test('rateLimitPerSecond 0 never answers 429 and announces 50 remaining', async (t) => {
    const sandbox = await startSandbox(t, { rateLimitPerSecond: 0 })
    for (let i = 0; i < 60; i++) {
      const res = await call(sandbox, 'GET', `/api/v10/channels/${DefaultIds.general}`, undefined, AUTH)
      if (res.status !== 200) t.fail(`request ${i} answered ${res.status}`)
      if (i === 59) {
        t.equal(res.headers.get('x-ratelimit-limit'), '50')
        t.equal(res.headers.get('x-ratelimit-remaining'), '50')
        t.match(res.headers.get('x-ratelimit-reset-after'), /^\d+\.\d{3}$/)
      }
    }
    t.same(await counts(sandbox), { 'GET /channels/:id 200': 60 })
  })

  t.test('/control/reset empties the buckets', async (t) => {
    const sandbox = await startSandbox(t, { rateLimitPerSecond: 1 })
    const path = `/api/v10/channels/${DefaultIds.general}`
    t.equal((await call(sandbox, 'GET', path, undefined, AUTH)).status, 200)
    t.equal((await call(sandbox, 'GET', path, undefined, AUTH)).status, 429)
    await call(sandbox, 'POST', '/control/reset')
    const after = await call(sandbox, 'GET', path, undefined, AUTH)
    t.equal(after.status, 200)
    t.equal(after.headers.get('x-ratelimit-remaining'), '0')
  })
})
