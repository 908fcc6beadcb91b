/**
 * Where a development start listens, and what a taken port does (issue 19), with the real built serve:
 * - without HOST (and outside production) every port is on 127.0.0.1: the API, the three metrics ports and the
 *   sandbox answer there and refuse on the machine's other address (before: every interface, while the lines said
 *   127.0.0.1); the "up" and "front listening" lines show the address bound, 0.0.0.0 too (before: rewritten);
 * - a second serve beside a running one exits 98 at once with one line naming the part and the port (before: every
 *   part failed with EADDRINUSE and was restarted forever, with stack traces); so does a taken metrics port;
 * - the front alone refuses a port another front serves, although uWS's SO_REUSEPORT would let it share (before: it
 *   said "front listening" and took half the connections);
 * - a part that dies after it has started is still restarted.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { connect, createServer, type Server } from 'node:net'
import { networkInterfaces } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createSandbox } from '../src/sandbox/create-sandbox.js'
import { buildApp, startService, type RunningService } from './helpers/built-app.js'
import { descendants, jsonEntries } from './helpers/parts.js'
import { freePort } from './helpers/scratch.js'
import { eventually, startStack, type Stack, type Teardown } from './helpers/stack.js'

t.setTimeout(300_000)

let app = ''
let stack: Stack

t.before(async () => {
  const [started, built] = await Promise.all([startStack(t, { front: false, consumers: [] }), buildApp(t, 'pl-serve-ports-')])
  stack = started
  app = built
})

/** A non-loopback address of this machine (IPv4 first), or undefined when it has none. */
function otherAddress(): string | undefined {
  const all = Object.values(networkInterfaces()).flatMap((list) => list ?? [])
  const usable = all.filter((a) => !a.internal && !(a.family === 'IPv6' && a.address.startsWith('fe80:')))
  return (usable.find((a) => a.family === 'IPv4') ?? usable[0])?.address
}

/** Connects to `host:port`: 'open', or the error code (ECONNREFUSED). */
function tcp(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 3000 })
    socket.once('connect', () => {
      socket.destroy()
      resolve('open')
    })
    socket.once('timeout', () => {
      socket.destroy()
      resolve('ETIMEDOUT')
    })
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message))
  })
}

async function holdPort(t: Teardown, port: number): Promise<Server> {
  const server = createServer((socket) => socket.destroy())
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return server
}

/** Every port of one serve, fixed (a second serve given the same ones collides on all of them). */
async function ports() {
  return {
    PORT: String(await freePort()),
    SANDBOX_PORT: String(await freePort()),
    METRICS_PORT: String(await freePort()),
    WORKER_METRICS_PORT: String(await freePort()),
    GATEWAY_METRICS_PORT: String(await freePort()),
  }
}

/** Waits for `service` to exit (at most `ms`); resolves with its status, or 'still running'. */
async function exitWithin(service: RunningService, ms: number): Promise<number | null | 'still running'> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), ms)))
  try {
    return await Promise.race([service.exitCode, late])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * `node ARGS` as a command line without NODE_OPTIONS. tap's process-info hook puts itself into the NODE_OPTIONS of
 * every child it sees spawned (an explicit empty value included), and its signal-exit handler swallows a SIGTERM that
 * arrives while a part is still loading its modules: a part that serve stops that early would run on (seen under load:
 * strace showed the SIGTERM delivered to a libuv handler installed by the hook). `env -u` drops it for the built tree.
 */
const NODE = '/usr/bin/env'
const node = (...args: string[]) => ['-u', 'NODE_OPTIONS', process.execPath, ...args]

const TAKEN = 'is already in use: another presence-link, or another program, listens there; stop it, or set'

t.test('serve without HOST, then a second serve and a front beside it', async (t) => {
  const env = await ports()
  const first = startService(t, app, stack, NODE, node('dist/src/serve.js'), { ...env, HOST: '' })
  const up = await eventually(async () => first.entries().find((e) => typeof e.msg === 'string' && e.msg.startsWith('presence-link is up at')), 120_000, '"up"')
  first.rememberTree()

  t.test('every port is on 127.0.0.1 and refused on the machine\'s other address; the lines say 127.0.0.1', async (t) => {
    t.equal(up.msg, `presence-link is up at http://127.0.0.1:${env.PORT}/api/v1 (Discord sandbox control API at http://127.0.0.1:${env.SANDBOX_PORT}/control)`)
    // The front's primary logs its line itself, so it may reach the shared output just after serve's "up".
    const listening = await eventually(async () => first.entries().find((e) => e.msg === 'front listening'), 10_000, '"front listening"')
    t.equal(listening.url, `http://127.0.0.1:${env.PORT}`)
    const answers = async (url: string) => (await fetch(url)).status
    t.equal(await answers(`http://127.0.0.1:${env.PORT}/readyz`), 200, 'the API on loopback')
    for (const variable of ['METRICS_PORT', 'WORKER_METRICS_PORT', 'GATEWAY_METRICS_PORT'] as const) {
      t.equal(await answers(`http://127.0.0.1:${env[variable]}/metrics`), 200, `${variable} on loopback`)
    }
    t.equal(await answers(`http://127.0.0.1:${env.SANDBOX_PORT}/control/state`), 200, 'the sandbox on loopback')
    const other = otherAddress()
    if (other === undefined) {
      t.pass('the ports refuse on another address', { skip: 'this machine has no address besides loopback, so that cannot be checked' })
      return
    }
    for (const [variable, port] of Object.entries(env)) t.equal(await tcp(other, Number(port)), 'ECONNREFUSED', `${variable} refused on ${other}`)
  })

  t.test('a second serve with the same ports exits 98 at once, with one line naming the sandbox and its port', async (t) => {
    const second = startService(t, app, stack, NODE, node('dist/src/serve.js'), { ...env, HOST: '' })
    t.equal(await exitWithin(second, 30_000), 98)
    const fatal = second.entries().filter((e) => e.level === 60)
    t.same(
      fatal.map((e) => ({ process: e.process, part: e.part, port: e.port, msg: e.msg })),
      [{ process: 'serve', part: 'sandbox', port: Number(env.SANDBOX_PORT), msg: `sandbox cannot start: port ${env.SANDBOX_PORT} on 127.0.0.1 (SANDBOX_PORT) ${TAKEN} SANDBOX_PORT to a free port` }],
    )
    t.same(second.entries().filter((e) => e.msg === 'part exited; restarting'), [], 'nothing restarted')
    t.notMatch(second.output(), /^\s+at |"stack":/m, 'no stack trace')
    t.equal((await fetch(`http://127.0.0.1:${env.PORT}/readyz`)).status, 200, 'the first serve still answers')
  })

  t.test('the front alone exits 98 on the port the first front serves (SO_REUSEPORT would have let it share)', async (t) => {
    const front = spawn(NODE, node(join(app, 'dist/src/front.js')), {
      cwd: app,
      env: { ...process.env, DATABASE_URL: stack.config.databaseUrl, REDIS_URL: stack.config.redisUrl, REDIS_PREFIX: stack.config.redisPrefix, HOST: '', PORT: env.PORT, METRICS_PORT: '0', FRONT_WORKERS: '1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    front.stdout.on('data', (d: Buffer) => (out += d.toString()))
    front.stderr.on('data', (d: Buffer) => (out += d.toString()))
    const timer = setTimeout(() => front.kill('SIGKILL'), 30_000)
    const code = await new Promise((resolve) => front.once('close', (c, signal) => resolve(c ?? signal)))
    clearTimeout(timer)
    t.equal(code, 98, code === 98 ? 'exit 98' : `exit 98; output:\n${out}`)
    const lines = jsonEntries(out.split('\n'))
    t.same(
      lines.filter((e) => e.level === 60).map((e) => e.msg),
      [`front cannot start: port ${env.PORT} on 127.0.0.1 (PORT) ${TAKEN} PORT to a free port`],
    )
    t.notOk(lines.some((e) => e.msg === 'front listening'), 'it never listened')
  })

  t.test('a part that dies after it has started is restarted, and serve keeps running', async (t) => {
    const worker = descendants(first.pid).find((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('workers/worker.js')
      } catch {
        return false
      }
    })
    t.ok(worker !== undefined, 'the worker process found')
    process.kill(worker!, 'SIGKILL')
    const restarting = await eventually(async () => first.entries().find((e) => e.msg === 'part exited; restarting' && e.part === 'worker'), 30_000, 'the restart line')
    t.equal(restarting.signal, 'SIGKILL')
    await eventually(async () => ((await fetch(`http://127.0.0.1:${env.WORKER_METRICS_PORT}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined), 60_000, 'the worker back')
    t.equal(await exitWithin(first, 0), 'still running')
  })
})

t.test('a taken worker metrics port stops serve at once, naming the worker and WORKER_METRICS_PORT', async (t) => {
  const env = await ports()
  await holdPort(t, Number(env.WORKER_METRICS_PORT))
  const service = startService(t, app, stack, NODE, node('dist/src/serve.js'), env)
  t.equal(await exitWithin(service, 60_000), 98)
  const taken = `port ${env.WORKER_METRICS_PORT} on 127.0.0.1 (WORKER_METRICS_PORT) ${TAKEN} WORKER_METRICS_PORT to a free port`
  t.same(
    service.entries().filter((e) => e.level === 60).map((e) => [e.process, e.msg]),
    [
      ['worker', `worker cannot start: ${taken}`],
      ['serve', `worker cannot start: ${taken}`],
    ],
  )
  t.same(service.entries().filter((e) => e.msg === 'part exited; restarting'), [], 'nothing restarted')
  t.notMatch(service.output(), /^\s+at |"stack":/m, 'no stack trace')
})

t.test('with HOST=0.0.0.0 the "up" and "front listening" lines show 0.0.0.0, the address bound', async (t) => {
  const env = await ports()
  const service = startService(t, app, stack, NODE, node('dist/src/serve.js'), { ...env, HOST: '0.0.0.0' })
  const up = await eventually(async () => service.entries().find((e) => typeof e.msg === 'string' && e.msg.startsWith('presence-link is up at')), 120_000, '"up"')
  service.rememberTree()
  t.equal(up.msg, `presence-link is up at http://0.0.0.0:${env.PORT}/api/v1 (Discord sandbox control API at http://127.0.0.1:${env.SANDBOX_PORT}/control)`)
  const listening = await eventually(async () => service.entries().find((e) => e.msg === 'front listening'), 10_000, '"front listening"')
  t.equal(listening.url, `http://0.0.0.0:${env.PORT}`)
  const other = otherAddress()
  if (other === undefined) t.pass('the API answers on another address', { skip: 'this machine has no address besides loopback' })
  else t.equal(await tcp(other, Number(env.PORT)), 'open', `the API answers on ${other} too`)
})

t.test('Discord refusing the token at the first start stops serve with 78 and the gateway\'s reason, nothing restarted', async (t) => {
  const discord = await createSandbox({ port: 0, botToken: 'the-right-token' })
  t.teardown(() => discord.close())
  const service = startService(t, app, stack, NODE, node('dist/src/serve.js'), {
    ...(await ports()),
    SANDBOX: 'off',
    DISCORD_TOKEN: 'a-reset-token',
    DISCORD_API: discord.apiBase,
    ROBLOX_USERS_API: discord.robloxBase,
  })
  t.equal(await exitWithin(service, 90_000), 78)
  const refused =
    'Discord rejected DISCORD_TOKEN (401 Unauthorized at login): the token is wrong or was reset. Get a new one with "Reset Token" ' +
    'on the Bot page of the application in the Discord Developer Portal (https://discord.com/developers/applications), put it in DISCORD_TOKEN, then start the gateway again.'
  t.same(
    service.entries().filter((e) => e.level === 60).map((e) => [e.process, e.msg]),
    [
      ['gateway', refused],
      ['serve', `gateway cannot start: ${refused}`],
    ],
  )
  t.same(service.entries().filter((e) => e.msg === 'part exited; restarting'), [], 'nothing restarted')
})
