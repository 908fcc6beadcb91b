/**
 * No orphans: the whole service (built, as `npm start` runs it) under a little load is stopped with SIGTERM to the
 * npm process, with SIGTERM and SIGINT to `serve`, and with SIGKILL to `serve`; every process below it must be gone
 * within the stop deadline. Before, npm's SIGTERM reached only `sh`, which did not pass it on, and a killed serve
 * left every part running.
 */
import { spawn } from 'node:child_process'
import { cp, copyFile, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import { alive, descendants } from './helpers/parts.js'
import { freePort } from './helpers/scratch.js'
import { eventually, startStack, type Stack } from './helpers/stack.js'

t.setTimeout(420_000)

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** serve's own deadline (15 s) plus start-up slack on a loaded machine. */
const GONE_WITHIN_MS = 25_000

let app = ''
let stack: Stack

/** Builds the project into a temporary copy laid out like the checkout (package.json beside dist/). */
async function buildApp(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pl-serve-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const out = join(dir, 'app')
  await mkdir(out)
  await promisify(execFile)(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(out, 'dist'), '--noCheck', '--sourceMap', 'false'], { cwd: ROOT })
  await cp(join(ROOT, 'src/redis/scripts'), join(out, 'dist/src/redis/scripts'), { recursive: true })
  await copyFile(join(ROOT, 'package.json'), join(out, 'package.json'))
  await symlink(join(ROOT, 'node_modules'), join(out, 'node_modules'), 'dir')
  return out
}

t.before(async () => {
  const [started, built] = await Promise.all([startStack(t, { front: false, consumers: [] }), buildApp()])
  stack = started
  app = built
})

/** Starts the service with `command` in the built app, waits until it says it is up, and keeps callbacks polled. */
async function startService(command: string, args: string[]) {
  const [port, sandboxPort] = [await freePort(), await freePort()]
  const child = spawn(command, args, {
    cwd: app,
    env: {
      ...process.env,
      SANDBOX: 'on',
      DISCORD_TOKEN: '',
      NODE_ENV: '',
      DATABASE_URL: stack.config.databaseUrl,
      REDIS_URL: stack.config.redisUrl,
      REDIS_PREFIX: stack.config.redisPrefix,
      HOST: '127.0.0.1',
      PORT: String(port),
      SANDBOX_PORT: String(sandboxPort),
      METRICS_PORT: '0',
      WORKER_METRICS_PORT: '0',
      GATEWAY_METRICS_PORT: '0',
      FRONT_WORKERS: '1',
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (out += d.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  // Orphans are re-parented away from the child: remember the tree as it was once up, to kill what a failure leaves.
  const seen = new Set<number>()
  t.teardown(async () => {
    for (const pid of new Set([child.pid!, ...seen, ...descendants(child.pid!)])) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  })
  await eventually(async () => (out.includes('presence-link is up at') ? true : undefined), 180_000, `the service to come up; output:\n${out.slice(-3000)}`)
  for (const pid of descendants(child.pid!)) seen.add(pid)
  let polling = true
  const load = (async () => {
    while (polling) {
      await fetch(`http://127.0.0.1:${port}/api/v1/callbacks/ABCD`).then((r) => r.text()).catch(() => undefined)
      await new Promise((r) => setTimeout(r, 20))
    }
  })()
  return {
    pid: child.pid!,
    exited,
    output: () => out,
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
      for (const line of service.output().split('\n')) {
        try {
          const e = JSON.parse(line) as { msg?: string; process?: string; port?: number }
          if (e.msg === 'metrics listening' && e.process !== undefined && e.port !== undefined) ports.set(e.process, e.port)
        } catch {
          // not a JSON line
        }
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
