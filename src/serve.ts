/**
 * Entry point: `npm start`. Runs every part of the service as a child process and restarts any that dies.
 * The list below is the whole system; the README's process table mirrors it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { loadConfig } from './config.js'
import { createLogger } from './lib/logger.js'

const config = loadConfig()
const log = createLogger('serve', config.logLevel)

interface Part {
  name: string
  entry: string
  args?: string[]
  env?: Record<string, string>
  /** Skip this part under this configuration. */
  when?: () => boolean
}

/** Every running part, in start order. */
const PARTS: Part[] = [
  { name: 'worker', entry: '../workers/worker.js' },
  { name: 'front', entry: './front.js' },
]

const children = new Map<string, ChildProcess>()
let stopping = false

function start(part: Part, attempt = 0): void {
  const file = fileURLToPath(new URL(part.entry, import.meta.url))
  const child = spawn(process.execPath, [...process.execArgv, file, ...(part.args ?? [])], {
    env: { ...process.env, ...part.env },
    stdio: 'inherit',
  })
  children.set(part.name, child)
  const startedAt = Date.now()
  child.on('exit', (code, signal) => {
    children.delete(part.name)
    if (stopping) return
    // A part that ran a minute is healthy again: restart quickly; one that keeps dying backs off up to 30 s.
    const next = Date.now() - startedAt > 60_000 ? 0 : attempt + 1
    const delay = Math.min(30_000, 500 * 2 ** Math.min(next, 6))
    log.error({ part: part.name, code, signal, restartInMs: delay }, 'part exited; restarting')
    setTimeout(() => start(part, next), delay).unref()
  })
}

async function waitHttp(url: string, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) })
      if (res.ok) return true
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250))
  }
  return false
}

function stop(signal: NodeJS.Signals): void {
  if (stopping) return
  stopping = true
  log.info({ signal }, 'stopping every part')
  for (const child of children.values()) child.kill('SIGTERM')
  const deadline = setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL')
    process.exit(1)
  }, 15_000)
  const check = setInterval(() => {
    if (children.size === 0) {
      clearInterval(check)
      clearTimeout(deadline)
      process.exit(0)
    }
  }, 100)
}

process.once('SIGINT', () => stop('SIGINT'))
process.once('SIGTERM', () => stop('SIGTERM'))

for (const part of PARTS) if (part.when?.() ?? true) start(part)

const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host
const base = `http://${host}:${config.port}`
if (await waitHttp(`${base}/readyz`, 60_000)) {
  log.info({ api: `${base}/api/v1`, health: `${base}/healthz`, parts: [...children.keys()] }, `presence-link is up at ${base}/api/v1`)
} else {
  log.error({ url: `${base}/readyz` }, 'the front did not become ready within 60 s')
}
