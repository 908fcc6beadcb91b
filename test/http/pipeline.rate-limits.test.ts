import t from 'tap'
import { startFront } from '../../src/runtime/front-runtime.js'
import { getText, postJson, startStack, type Stack } from '../helpers/stack.js'

let stack: Stack

t.before(async () => {
  stack = await startStack(t)
})

t.test('spec limits per client IP', async (t) => {
  t.test('the 11th bind in a minute gets 429 with Retry-After', async (t) => {
    const body = { code: 'ZZZZ', platform_username: 'Abc', platform_user_id: 1 }
    for (let i = 0; i < 10; i++) {
      const res = await postJson(`${stack.api}/bind`, body, `Bearer ${stack.apiKey}`)
      t.equal(res.status, 404, `bind ${i + 1}`)
    }
    const res = await postJson(`${stack.api}/bind`, body, `Bearer ${stack.apiKey}`)
    t.equal(res.status, 429)
    const retry = Number(res.headers.get('retry-after'))
    t.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`)
    t.same(res.body, {
      detail: {
        status: 'error',
        code: 'rate_limited',
        message: `rate limit exceeded: 10 requests per 60 seconds per IP; retry in ${retry} s`,
        retry_after: retry,
        limit: 'bind',
      },
    })
  })

  t.test('the 31st log in a minute gets 429, and unauthenticated requests spend the budget too', async (t) => {
    for (let i = 0; i < 20; i++) {
      t.equal((await postJson(`${stack.api}/log/server`, { event_type: 'x', description: 'y' }, `Bearer ${stack.apiKey}`)).status, 200)
    }
    for (let i = 0; i < 10; i++) {
      t.equal((await postJson(`${stack.api}/log/server`, { event_type: 'x', description: 'y' }, null)).status, 401)
    }
    const res = await postJson(`${stack.api}/log/server`, { event_type: 'x', description: 'y' }, `Bearer ${stack.apiKey}`)
    t.equal(res.status, 429)
    t.equal(res.body.detail.code, 'rate_limited')
    t.ok(Number(res.headers.get('retry-after')) >= 1)
  })

  t.test('the 101st callbacks in 10 seconds gets a plain-text 429; a forged X-Forwarded-For gets no fresh budget', async (t) => {
    const statuses = await Promise.all(Array.from({ length: 100 }, () => getText(`${stack.api}/callbacks/ZZZZ`).then((r) => r.status)))
    t.same([...new Set(statuses)], [200])
    const res = await getText(`${stack.api}/callbacks/ZZZZ`)
    t.equal(res.status, 429)
    const retry = Number(res.headers.get('retry-after'))
    t.ok(retry >= 1 && retry <= 10)
    t.match(res.headers.get('content-type'), /^text\/plain/)
    t.equal(res.text, `rate limit exceeded: 100 requests per 10 seconds per IP; retry in ${retry} s\n`)
    const forged = await getText(`${stack.api}/callbacks/ZZZZ`, { 'x-forwarded-for': '203.0.113.9' })
    t.equal(forged.status, 429)
  })

  t.test('rpc has its own budget', async (t) => {
    t.equal((await getText(`${stack.api}/rpc/ZZZZ`)).status, 200)
  })
})

t.test('behind a trusted proxy each forwarded client has its own budget, and prepended hops are ignored', async (t) => {
  const proxied = await startStack(t, { env: { TRUST_PROXY: '127.0.0.1', RATE_LIMITS: 'callbacks=3/10' }, consumers: [] })
  const get = (xff: string) => getText(`${proxied.api}/callbacks/ZZZZ`, { 'x-forwarded-for': xff }).then((r) => r.status)
  t.same([await get('198.51.100.1'), await get('198.51.100.1'), await get('198.51.100.1'), await get('198.51.100.1')], [200, 200, 200, 429])
  t.equal(await get('198.51.100.2'), 200)
  t.equal(await get('10.9.9.9, 198.51.100.1'), 429, 'a client cannot escape by prepending hops')
  t.equal((await getText(`${proxied.api}/callbacks/ZZZZ`)).status, 200, 'the proxy itself counts as a client when it sends no header')
})

t.test('two fronts share one budget exactly: the 101st request is refused whichever front it reaches', async (t) => {
  const a = await startStack(t, { env: { TRUST_PROXY: '127.0.0.1' }, consumers: [] })
  const b = `http://127.0.0.1:${(await startFront(a.ctx)).port}/api/v1`
  const fronts = [a.api, b]
  const get = (front: string, xff: string) => getText(`${front}/rpc/ZZZZ`, { 'x-forwarded-for': xff })

  const remaining: string[] = []
  for (let i = 0; i < 100; i++) {
    const res = await get(fronts[i % 2]!, '198.51.100.30')
    remaining.push(res.status === 200 ? String(res.headers.get('ratelimit-remaining')) : String(res.status))
  }
  // A front answering from its spare reports that spare's place in the window: each place is given once, and the
  // order can differ by one where the client moves between fronts.
  t.same([...remaining].sort((x, y) => Number(y) - Number(x)), Array.from({ length: 100 }, (_, i) => String(99 - i)), 'RateLimit-Remaining gives each place of the window once')
  for (const front of fronts) {
    const res = await get(front, '198.51.100.30')
    t.equal(res.status, 429)
    t.match(res.text, /^rate limit exceeded: 100 requests per 10 seconds per IP; retry in \d+ s\n$/)
    t.equal(res.headers.get('ratelimit-remaining'), '0')
  }

  const together = await Promise.all(Array.from({ length: 150 }, (_, i) => get(fronts[i % 2]!, '198.51.100.31').then((r) => r.status)))
  t.equal(together.filter((s) => s === 200).length, 100, '150 requests at once through two fronts: exactly 100 answered')
  t.equal(together.filter((s) => s === 429).length, 50)
})
