/** Conditional polling: callbacks and rpc answer with an ETag; If-None-Match with the current one gives 304. */
import t from 'tap'
import { MARKS_REFRESH_MS } from '../../../src/redis/shard-marks.js'
import { eventually, getText, startStack, type Stack } from '../../helpers/stack.js'

let user = 400000000000000000n

async function linked(stack: Stack, username: string): Promise<string> {
  const { code } = await stack.codes.issue(String(++user))
  const bound = await stack.codes.bind(code.code, { platformUserId: String(user % 1_000_000n), platformUsername: username }, { source: 'test' })
  if (bound.status !== 'bound') throw new Error(`setup bind gave ${bound.status}`)
  return code.code
}

t.test('callbacks and rpc', async (t) => {
  const stack = await startStack(t, { env: { RATE_LIMITS: 'off' }, consumers: [] })
  await stack.presence.markLive(0, 3_600_000)
  // The front's marks watcher reads the marks once a second.
  await new Promise((resolve) => setTimeout(resolve, MARKS_REFRESH_MS + 200))
  const code = await linked(stack, 'Etag_User')

  for (const route of ['callbacks', 'rpc'] as const) {
    t.test(`${route}: a 200 carries a strong ETag; the same ETag back gives 304 with no body`, async (t) => {
      const url = `${stack.api}/${route}/${code}&ZZZZ`
      const first = await getText(url)
      t.equal(first.status, 200)
      const etag = first.headers.get('etag')
      t.match(etag, /^"[A-Za-z0-9_-]{27}"$/)
      t.equal(first.headers.get('cache-control'), 'no-cache')
      t.equal((await getText(url)).headers.get('etag'), etag, 'the same body gives the same ETag')
      for (const header of [etag!, `W/${etag}`, `"nope", ${etag}`, '*']) {
        const again = await getText(url, { 'if-none-match': header })
        t.equal(again.status, 304, `If-None-Match: ${header}`)
        t.equal(again.text, '')
        t.equal(again.headers.get('etag'), etag)
        t.equal(again.headers.get('content-type'), null)
        t.equal(again.headers.get('content-length'), '0', 'not the 2^63 hyper-express would declare')
      }
      t.equal((await getText(url, { 'if-none-match': '"nope"' })).status, 200, 'another ETag gets the body')
      t.equal((await getText(url, { 'if-none-match': etag!.slice(1, -1) })).status, 200, 'an unquoted value matches nothing')
    })
  }

  t.test('a presence change gives a new ETag, and the old one gets the new body', async (t) => {
    const url = `${stack.api}/callbacks/${code}`
    const before = await getText(url)
    await stack.presence.set(code, { shard: 0, status: 'online', activity: 'Playing,\nChess;\n' })
    const after = await eventually(async () => {
      const res = await getText(url, { 'if-none-match': before.headers.get('etag')! })
      return res.status === 304 ? undefined : res
    }, 5000, 'the change to reach the front')
    t.equal(after.status, 200)
    t.match(after.text, /Chess/)
    t.not(after.headers.get('etag'), before.headers.get('etag'))
  })

  t.test('errors carry no ETag', async (t) => {
    const res = await getText(`${stack.api}/callbacks/!!!`)
    t.equal(res.status, 400)
    t.equal(res.headers.get('etag'), null)
  })
})

t.test('the rate limit applies to conditional requests too', async (t) => {
  const stack = await startStack(t, { env: { RATE_LIMITS: 'callbacks=3/60' }, consumers: [] })
  const url = `${stack.api}/callbacks/ZZZZ`
  const first = await getText(url)
  const etag = first.headers.get('etag')!
  t.equal((await getText(url, { 'if-none-match': etag })).status, 304)
  const third = await getText(url, { 'if-none-match': etag })
  t.equal(third.status, 304)
  t.equal(third.headers.get('ratelimit-remaining'), '0', 'a 304 spends the limit and says so')
  const fourth = await getText(url, { 'if-none-match': etag })
  t.equal(fourth.status, 429)
  t.equal(fourth.headers.get('etag'), null)
})
