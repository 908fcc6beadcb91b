/**
 * Real processes for fault tests: a private `redis-server` on a free port that a test may SIGKILL and restart (the
 * shared Redis is never touched), entry points run as child processes with tap's TypeScript loader, their output
 * kept line by line, and the process tree below a pid read from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { fileURLToPath } from 'node:url'
import type { Teardown } from './stack.js'
import { freePort } from './scratch.js'

/** A private Redis that can be killed and started again on the same port. */
export interface PrivateRedis {
  port: number
  url: string
  /** SIGKILL; resolves once it has exited. */
  kill(): Promise<void>
  /** SIGSTOP: the process freezes with its connections open; nothing it has not answered yet is done (kill() ends it). */
  freeze(): void
  /**
   * Starts it again and waits until it accepts connections: empty without `dir`; with `dir`, from the append-only
   * file kept there (fsynced before every reply), so what it acknowledged survives a SIGKILL.
   */
  start(): Promise<void>
}

async function reachable(port: number, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => (socket.end(), resolve(true)))
      socket.on('error', () => resolve(false))
    })
    if (up) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`redis on ${port} did not come up`)
}

/**
 * A private redis-server on a free port, not started yet unless `started`; killed at teardown. With `dir` it keeps an
 * append-only file there (`appendfsync always`).
 */
export async function privateRedis(t: Teardown, started = true, dir?: string): Promise<PrivateRedis> {
  const port = await freePort()
  let child: ChildProcess | undefined
  t.teardown(() => {
    child?.kill('SIGKILL')
  })
  const redis: PrivateRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      const running = child
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return
      const exited = new Promise((resolve) => running.once('exit', resolve))
      running.kill('SIGKILL')
      await exited
    },
    freeze() {
      child?.kill('SIGSTOP')
    },
    async start() {
      const persistence = dir === undefined ? ['--appendonly', 'no'] : ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir]
      child = spawn('/usr/bin/redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence], { stdio: 'ignore' })
      await reachable(port)
    },
  }
  if (started) await redis.start()
  return redis
}

/** A part running as a child process. */
export interface Part {
  child: ChildProcess
  /** Every stdout and stderr line so far. */
  lines(): string[]
  /** The JSON log lines so far (non-JSON lines skipped). */
  entries(): Array<Record<string, unknown>>
  /** Resolves with the first JSON entry (from now on or already seen) that `match` accepts. */
  waitFor(match: (entry: Record<string, unknown>) => boolean, timeoutMs?: number, what?: string): Promise<Record<string, unknown>>
  /** SIGTERM (or `signal`) and wait for the exit; resolves with the exit code or signal. */
  stop(signal?: NodeJS.Signals): Promise<number | string | null>
}

/** The JSON log lines among `lines` (other lines skipped). */
export function jsonEntries(lines: readonly string[]): Array<Record<string, unknown>> {
  return lines.flatMap((line) => {
    try {
      const parsed: unknown = JSON.parse(line)
      return typeof parsed === 'object' && parsed !== null ? [parsed as Record<string, unknown>] : []
    } catch {
      return []
    }
  })
}

/** Path of an entry point of the repository (`src/front.ts`, `workers/worker.ts`). */
export function entry(path: string): string {
  return fileURLToPath(new URL(`../../${path}`, import.meta.url))
}

/**
 * Starts a gateway process of its own (src/gateway.ts) against `discordApi`, on `storage`'s MySQL, Redis and prefix:
 * metrics on a free port, no whitelist, no staff guilds, message content off, one shard, token `any-token`; `env` on
 * top. Stopped at teardown.
 */
export function startGatewayPart(
  t: Teardown,
  storage: { databaseUrl: string; redisUrl: string; redisPrefix: string },
  discordApi: string,
  env: Record<string, string> = {},
): Part {
  return startPart(t, entry('src/gateway.ts'), {
    DATABASE_URL: storage.databaseUrl,
    REDIS_URL: storage.redisUrl,
    REDIS_PREFIX: storage.redisPrefix,
    HOST: '127.0.0.1',
    GATEWAY_METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    DISCORD_TOKEN: 'any-token',
    DISCORD_API: discordApi,
    GUILD_WHITELIST: '',
    STAFF_GUILD_IDS: '',
    MESSAGE_CONTENT: 'off',
    SHARD_IDS: '',
    SHARD_COUNT: '1',
    ...env,
  })
}

/** Starts `file` with the test runner's TS loader and `env` on top of ours; stopped at teardown. */
export function startPart(t: Teardown, file: string, env: Record<string, string>, args: readonly string[] = []): Part {
  const loader = process.execArgv.filter((a) => a.includes('@tapjs/typescript'))
  const child = spawn(process.execPath, [...loader, file, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  const all: string[] = []
  const partial = { out: '', err: '' }
  const waiters = new Set<() => void>()
  const feed = (which: 'out' | 'err') => (chunk: Buffer) => {
    partial[which] += chunk.toString()
    let nl: number
    while ((nl = partial[which].indexOf('\n')) >= 0) {
      all.push(partial[which].slice(0, nl))
      partial[which] = partial[which].slice(nl + 1)
    }
    for (const w of waiters) w()
  }
  child.stdout!.on('data', feed('out'))
  child.stderr!.on('data', feed('err'))
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)))
  const entries = () => jsonEntries(all)
  const part: Part = {
    child,
    lines: () => [...all],
    entries,
    waitFor(match, timeoutMs = 60_000, what = 'a log line') {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = entries().find(match)
          if (found === undefined) return
          done()
          resolve(found)
        }
        const timer = setTimeout(() => {
          done()
          reject(new Error(`timed out waiting for ${what}; output:\n${all.slice(-40).join('\n')}`))
        }, timeoutMs)
        const onExit = () => {
          done()
          reject(new Error(`the process exited while waiting for ${what}; output:\n${all.slice(-40).join('\n')}`))
        }
        const done = () => {
          clearTimeout(timer)
          waiters.delete(check)
          child.off('exit', onExit)
        }
        waiters.add(check)
        child.once('exit', onExit)
        check()
      })
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    }
  })
  return part
}

/** Pids of every live process below `pid` (children, grandchildren, ...), from /proc. */
export function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      // The command name may hold spaces and parentheses: the fields after the last ')' are fixed.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (fields[0] === 'Z') continue
      parentOf.set(Number(name), Number(fields[1]))
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = []
  const queue = [pid]
  while (queue.length > 0) {
    const p = queue.shift()!
    for (const [child, parent] of parentOf) {
      if (parent === p) {
        found.push(child)
        queue.push(child)
      }
    }
  }
  return found
}

/** True while `pid` is a live (non-zombie) process. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}
