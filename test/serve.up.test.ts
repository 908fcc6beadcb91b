/**
 * "presence-link is up" means every part is: serve says it only once the front answers /readyz and the worker and
 * the gateway have started. Before, it was said as soon as the front answered, while the worker could still be
 * starting (its /readyz said 503 "starting"), so a bind sent on the word "up" waited on nobody.
 * The worker is held off before its entry runs by a module preloaded with NODE_OPTIONS (a taken port, used before,
 * now stops serve at a part's first start: test/serve.ports.test.ts).
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { buildApp, startService } from './helpers/built-app.js'
import { freePort } from './helpers/scratch.js'
import { eventually, startStack, type Stack, type Teardown } from './helpers/stack.js'

t.setTimeout(300_000)

let app = ''
let stack: Stack

t.before(async () => {
  const [started, built] = await Promise.all([startStack(t, { front: false, consumers: [] }), buildApp(t, 'pl-serve-up-')])
  stack = started
  app = built
})

/**
 * Starts serve with the worker (or the part whose entry file ends with `entry`) held before its entry point runs (a
 * slow start): it has not started, and serve must wait for it, until `release()`. `held()` is true once it waits.
 */
async function servePartHeldOff(t: Teardown, env: Record<string, string> = {}, entry = '/workers/worker.js') {
  const dir = await mkdtemp(join(tmpdir(), 'pl-hold-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const [heldFile, releaseFile, preload] = [join(dir, 'held'), join(dir, 'release'), join(dir, 'hold-worker.mjs')]
  // Runs in every process of the tree; only the worker entry waits (top-level await holds the entry until it returns).
  await writeFile(
    preload,
    `import { existsSync, writeFileSync } from 'node:fs'
if (process.argv[1]?.endsWith(${JSON.stringify(entry)})) {
  writeFileSync(${JSON.stringify(heldFile)}, String(process.pid))
  while (!existsSync(${JSON.stringify(releaseFile)})) await new Promise((r) => setTimeout(r, 100))
}
`,
  )
  const [port, workerPort] = [await freePort(), await freePort()]
  const service = startService(t, app, stack, process.execPath, ['dist/src/serve.js'], {
    PORT: String(port),
    SANDBOX_PORT: String(await freePort()),
    WORKER_METRICS_PORT: String(workerPort),
    NODE_OPTIONS: `--import=${pathToFileURL(preload).href}`,
    ...env,
  })
  return { port, workerPort, service, held: () => existsSync(heldFile), release: () => writeFile(releaseFile, '') }
}

t.test('a worker that cannot start keeps serve from saying "up" until it has started', async (t) => {
  const { port, workerPort, service, held, release } = await servePartHeldOff(t)
  const said = (msg: string, part?: string) => service.entries().some((e) => e.msg === msg && (part === undefined || e.part === part || e.process === part))
  const isUp = () => service.output().includes('presence-link is up at')

  await eventually(async () => ((await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined), 120_000, 'the front ready')
  await eventually(async () => (held() ? true : undefined), 60_000, 'the worker held')
  await eventually(async () => (said('gateway metrics listening') ? true : undefined), 60_000, 'the gateway started')
  // serve looks at the front's /readyz every 250 ms: a second is four looks.
  await new Promise((r) => setTimeout(r, 1000))
  t.notOk(isUp(), 'not "up" while the front and the gateway are, but the worker is not')

  await release()
  await eventually(async () => (isUp() ? true : undefined), 90_000, () => `"up" once the worker started; output:\n${service.output().slice(-3000)}`)
  // At the word "up", every part answers ready.
  const ready = async (url: string) => {
    const res = await fetch(url)
    return { status: res.status, body: (await res.json()) as unknown }
  }
  t.same(await ready(`http://127.0.0.1:${workerPort}/readyz`), { status: 200, body: { status: 'ready', redis: 'ok', mysql: 'ok' } })
  const gatewayPort = service.entries().find((e) => e.msg === 'metrics listening' && e.process === 'gateway')?.port
  t.same(await ready(`http://127.0.0.1:${String(gatewayPort)}/readyz`), { status: 200, body: { status: 'ready', redis: 'ok', mysql: 'ok', discord: 'ok' } })
  t.same(await ready(`http://127.0.0.1:${port}/readyz`), { status: 200, body: { status: 'ready', redis: 'ok', mysql: 'ok' } })
  const up = service.entries().find((e) => typeof e.msg === 'string' && e.msg.startsWith('presence-link is up at'))
  t.same(up?.parts, ['sandbox', 'worker', 'front', 'gateway'], 'every part named as running')
  // The destinations the worker seeded from the sandbox's channels are the sandbox's: serve set LOG_DESTINATION_*,
  // not the operator, so they do not say `set by env:LOG_DESTINATION_*` (issue 32).
  const seeded = await stack.db.selectFrom('log_destinations').select(['category', 'set_by', 'sandbox']).orderBy('category').execute()
  t.same(seeded.map((d) => [d.category, d.set_by, Number(d.sandbox)]), [['server', 'sandbox', 1], ['ingame', 'sandbox', 1], ['moderation', 'sandbox', 1]])
})

t.test('a worker still not started after PART_START_TIMEOUT_MS is named in an error, and "up" follows once it starts', async (t) => {
  const { workerPort, service, release } = await servePartHeldOff(t, { PART_START_TIMEOUT_MS: '45000' })
  const late = await eventually(async () => service.entries().find((e) => e.level === 50 && Array.isArray(e.parts)), 120_000, 'the error naming the late part')
  t.same(late.parts, ['worker'], 'only the worker is late')
  t.match(late.msg, /^the front answers, but worker did not start within 45 s/)
  t.notOk(service.output().includes('presence-link is up at'), 'not "up" yet')
  await release()
  await eventually(async () => (service.output().includes('presence-link is up at') ? true : undefined), 90_000, () => `"up" once the worker started; output:\n${service.output().slice(-3000)}`)
  t.equal((await fetch(`http://127.0.0.1:${workerPort}/readyz`)).status, 200, 'the worker ready at the word "up"')
})

t.test('a front not ready by PART_START_TIMEOUT_MS is named in the error, and "up" still follows once it is', async (t) => {
  const { port, service, release } = await servePartHeldOff(t, { PART_START_TIMEOUT_MS: '45000' }, '/src/front.js')
  const late = await eventually(async () => service.entries().find((e) => e.level === 50 && Array.isArray(e.parts)), 120_000, 'the error naming the late part')
  t.same(late.parts, ['front'], 'only the front is late')
  t.equal(late.msg, 'the front did not become ready within 45 s')
  t.notOk(service.output().includes('presence-link is up at'), 'not "up" yet')
  await release()
  await eventually(async () => (service.output().includes('presence-link is up at') ? true : undefined), 90_000, () => `"up" once the front is ready; output:\n${service.output().slice(-3000)}`)
  t.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200, 'the front ready at the word "up"')
})
