/** The front's answers while Redis is unreachable. */
import t from 'tap'
import { privateRedis } from '../helpers/parts.js'
import { eventually, getText, postJson, startStack } from '../helpers/stack.js'

t.test('when Redis goes away writes answer 503, /readyz says why, and when it comes back empty the service recovers by itself', async (t) => {
  const redis = await privateRedis(t)
  const stack = await startStack(t, { env: { REDIS_URL: redis.url, RATE_LIMITS: 'off' }, consumers: ['log'] })
  const auth = `Bearer ${stack.apiKey}`
  t.equal((await postJson(`${stack.api}/log/server`, { event_type: 'boot', description: 'up' }, auth)).status, 200)

  await redis.kill()

  const log = await postJson(`${stack.api}/log/server`, { event_type: 'boot', description: 'up' }, auth)
  t.equal(log.status, 503)
  t.equal(log.headers.get('retry-after'), '5')
  t.equal(log.body.detail.status, 'error')

  const callbacks = await getText(`${stack.api}/callbacks/ABCD`)
  t.equal(callbacks.status, 503)
  t.equal(callbacks.text, 'temporarily unavailable; retry shortly\n')

  const ready = await getText(`${stack.origin}/readyz`)
  t.equal(ready.status, 503)
  t.same(JSON.parse(ready.text), { status: 'not_ready', redis: 'down', mysql: 'ok' })
  t.equal((await getText(`${stack.origin}/healthz`)).status, 200, 'the process itself is alive')

  await redis.start()
  const back = await eventually(async () => {
    const res = await postJson(`${stack.api}/log/server`, { event_type: 'after_restart', description: 'back' }, auth)
    return res.status === 200 ? res : undefined
  }, 15_000, 'the API key to be accepted again')
  t.same(back.body, { status: 'logged', category: 'server' })
  await eventually(() => stack.db.selectFrom('log_entries').select('id').where('event_type', '=', 'after_restart').executeTakeFirst(), 5000, 'the entry stored')
  t.equal((await getText(`${stack.origin}/readyz`)).status, 200)
})
