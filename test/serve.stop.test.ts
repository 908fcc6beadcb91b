/**
 * No orphans: the whole service (built, as `npm start` runs it) under a little load is stopped with SIGTERM to the
 * npm process, with SIGTERM and SIGINT to `serve`, and with SIGKILL to `serve`; every process below it must be gone
 * within the stop deadline. Before, npm's SIGTERM reached only `sh`, which did not pass it on, and a killed serve
 * left every part running.
 */
import t from 'tap'
import { buildApp, startService as spawnService } from './helpers/built-app.js'
import { alive, descendants } from './helpers/parts.js'
import { freePort } from './helpers/scratch.js'
import { eventually, startStack, type Stack } from './helpers/stack.js'

t.setTimeout(420_000)

/** serve's own deadline (15 s) plus start-up slack on a loaded machine. */
const GONE_WITHIN_MS = 25_000

let app = ''
let stack: Stack

t.before(async () => {
  const [started, built] = await Promise.all([startStack(t, { front: false, consumers: [] }), buildApp(t, 'pl-serve-')])
  stack = started
  app = built
})

/** Starts the service with `command` in the built app, waits until it says it is up, and keeps callbacks polled. */
async function startService(command: string, args: string[]) {
  const port = await freePort()
  const service = spawnService(t, app, stack, command, args, { PORT: String(port), SANDBOX_PORT: String(await freePort()) })
  await eventually(async () => (service.output().includes('presence-link is up at') ? true : undefined), 180_000, `the service to come up; output:\n${service.output().slice(-3000)}`)
  // Orphans are re-parented away from the child: remember the tree as it was once up, to kill what a failure leaves.
  service.rememberTree()
  let polling = true
  const load = (async () => {
    while (polling) {
      await fetch(`http://127.0.0.1:${port}/api/v1/callbacks/ABCD`).then((r) => r.text()).catch(() => undefined)
      await new Promise((r) => setTimeout(r, 20))
    }
  })()
  return {
    ...service,
    stopLoad: async () => {
      polling = false
      await load
    },
  }
}

/** Waits until every pid is gone; resolves with those still alive at the deadline. */
async function survivors(pids: readonly number[]): Promise<number[]> {
  const until = Date.now() + GONE_WITHIN_MS
  for (;;) {
    const left = pids.filter(alive)
    if (left.length === 0 || Date.now() > until) return left
    await new Promise((r) => setTimeout(r, 100))
  }
}

for (const [how, command, args, signal] of [
  ['SIGTERM to `npm start`', 'npm', ['start', '--ignore-scripts'], 'SIGTERM'],
  ['SIGINT to `npm start`', 'npm', ['start', '--ignore-scripts'], 'SIGINT'],
  ['SIGTERM to serve', process.execPath, ['dist/src/serve.js'], 'SIGTERM'],
  ['SIGKILL to serve (its parts stop by themselves)', process.execPath, ['dist/src/serve.js'], 'SIGKILL'],
] as const) {
  t.test(`${how}: every process below it exits`, async (t) => {
    const service = await startService(command, [...args])
    const tree = descendants(service.pid)
    // serve, sandbox, worker, gateway, the front primary and its worker (and npm's own shell when there is one).
    t.ok(tree.length >= 5, `${tree.length} processes below ${command}`)
    if (how === 'SIGTERM to serve') {
      // Every part is up: the worker and the gateway say so on their metrics ports, naming their dependencies.
      const ports = new Map<string, number>()
      for (const e of service.entries()) {
        if (e.msg === 'metrics listening' && typeof e.process === 'string' && typeof e.port === 'number') ports.set(e.process, e.port)
      }
      const ready = async (part: string) => {
        const res = await fetch(`http://127.0.0.1:${ports.get(part)}/readyz`)
        return { status: res.status, body: (await res.json()) as unknown }
      }
      t.same(await ready('worker'), { status: 200, body: { status: 'ready', redis: 'ok', mysql: 'ok' } })
      const gateway = await eventually(async () => {
        const r = await ready('gateway')
        return r.status === 200 ? r : undefined
      }, 20_000, 'the gateway ready')
      t.same(gateway.body, { status: 'ready', redis: 'ok', mysql: 'ok', discord: 'ok' })
      for (const part of ['front', 'worker', 'gateway']) t.equal((await fetch(`http://127.0.0.1:${ports.get(part)}/healthz`)).status, 200, `${part} /healthz`)
    }
    const sent = Date.now()
    process.kill(service.pid, signal)
    const left = await survivors([service.pid, ...tree])
    t.comment(`${how}: every process gone ${Date.now() - sent} ms after the signal`)
    await service.stopLoad()
    t.same(left, [], `every process exited within ${GONE_WITHIN_MS} ms`)
    if (signal !== 'SIGKILL') t.match(service.output(), /stopping every part/)
  })
}
