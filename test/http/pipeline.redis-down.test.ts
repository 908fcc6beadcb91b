/** The front's answers while Redis is unreachable. */
import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { connect } from 'node:net'
import { eventually, getText, postJson, startStack } from '../helpers/stack.js'
import { freePort } from '../helpers/scratch.js'

function startRedis(port: number): ChildProcess {
  return spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
}

async function reachable(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => (socket.end(), resolve(true)))
      socket.on('error', () => resolve(false))
    })
    if (up) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`redis on ${port} did not come up`)
}

t.test('when Redis goes away writes answer 503, /readyz says why, and when it comes back empty the service recovers by itself', async (t) => {
  const port = await freePort()
  let redis = startRedis(port)
  t.teardown(() => {
    redis.kill('SIGKILL')
  })
  await reachable(port)
  const stack = await startStack(t, { env: { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMITS: 'off' }, consumers: ['log'] })
  const auth = `Bearer ${stack.apiKey}`
  t.equal((await postJson(`${stack.api}/log/server`, { event_type: 'boot', description: 'up' }, auth)).status, 200)

  const exited = new Promise((resolve) => redis.once('exit', resolve))
  redis.kill('SIGKILL')
  await exited

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

  redis = startRedis(port)
  await reachable(port)
  const back = await eventually(async () => {
    const res = await postJson(`${stack.api}/log/server`, { event_type: 'after_restart', description: 'back' }, auth)
    return res.status === 200 ? res : undefined
  }, 15_000, 'the API key to be accepted again')
  t.same(back.body, { status: 'logged', category: 'server' })
  await eventually(() => stack.db.selectFrom('log_entries').select('id').where('event_type', '=', 'after_restart').executeTakeFirst(), 5000, 'the entry stored')
  t.equal((await getText(`${stack.origin}/readyz`)).status, 200)
})
