/**
 * The benchmarks' child processes: compiled scripts under dist/ (the service's entry points and the ceiling server),
 * started by `startProcess` and stopped by `stop`/`stopAll`, keeping each one's last output lines for readiness
 * checks and for the error message when one dies early.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** What to run. */
export interface ProcessSpec {
  /** Label in messages. */
  name: string
  /** Script path relative to dist/, e.g. `src/cli.js`. */
  script: string
  args?: readonly string[]
  /** Added to this process's environment. */
  env?: Record<string, string>
  /** Opens an IPC channel (the ceiling server receives its setup through it). */
  ipc?: boolean
  /** Copies the child's stderr to ours as it arrives, besides keeping it. */
  echoStderr?: boolean
  /** A command that ends by itself: its exit is not reported as an early death. */
  exits?: boolean
  /** Runs this program instead of `node dist/<script>` (the drills start `npm start`); `script` is then ignored. */
  command?: { file: string; args: readonly string[]; cwd?: string }
}

/** A running child process. */
export interface BenchProcess {
  name: string
  proc: ChildProcess
  /** Its pid (0 if spawning failed). */
  pid: number
  /** Its last output lines, stdout and stderr together. */
  lines: readonly string[]
  /** Resolves with the first output line matching `pattern` (already seen or coming); rejects on timeout or exit. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>
  /** SIGTERM, then SIGKILL after `killAfterMs`; resolves once it has exited. */
  stop(killAfterMs?: number): Promise<void>
  /** Sends `signal` on purpose (no "exited early" report) and resolves once it has exited. */
  kill(signal: NodeJS.Signals): Promise<void>
  /** Calls `listener` with every later output line. */
  onLine(listener: (line: string) => void): void
}

const DIST = new URL('../../', import.meta.url)
const KEPT_LINES = 200
const live = new Set<BenchProcess>()

/** Absolute path of a compiled file, given relative to dist/. */
export function distFile(path: string): string {
  return fileURLToPath(new URL(path, DIST))
}

function exited(proc: ChildProcess): boolean {
  return proc.exitCode !== null || proc.signalCode !== null
}

/**
 * Node options for the scripts started here: with `BENCH_CPU_PROF=DIR` every one (and the cluster workers it forks,
 * which inherit them) writes a V8 CPU profile into DIR when it exits, for finding where a measured figure goes.
 */
const PROFILE_ARGS = process.env.BENCH_CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]

/** Starts `spec.script` with this Node binary; the child is stopped by `stopAll` too. */
export function startProcess(spec: ProcessSpec): BenchProcess {
  const stdio = spec.ipc === true ? (['ignore', 'pipe', 'pipe', 'ipc'] as const) : (['ignore', 'pipe', 'pipe'] as const)
  const env = { ...process.env, ...spec.env }
  const proc =
    spec.command === undefined
      ? spawn(process.execPath, [...PROFILE_ARGS, distFile(spec.script), ...(spec.args ?? [])], { env, stdio: [...stdio] })
      : spawn(spec.command.file, [...spec.command.args], { env, stdio: [...stdio], ...(spec.command.cwd === undefined ? {} : { cwd: spec.command.cwd }) })
  const lines: string[] = []
  const listeners: Array<(line: string) => void> = []
  const waiters = new Set<{ pattern: RegExp; resolve: (line: string) => void }>()
  let stopping = spec.exits === true
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line === '') continue
      lines.push(line)
      if (lines.length > KEPT_LINES) lines.shift()
      for (const listener of listeners) listener(line)
      for (const w of waiters) {
        if (w.pattern.test(line)) {
          waiters.delete(w)
          w.resolve(line)
        }
      }
    }
  }
  proc.stdout?.on('data', onData)
  proc.stderr?.on('data', onData)
  if (spec.echoStderr === true) proc.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk))
  const exit = new Promise<void>((resolve) => proc.once('exit', () => resolve()))

  const child: BenchProcess = {
    name: spec.name,
    proc,
    pid: proc.pid ?? 0,
    lines,
    waitForLine(pattern, timeoutMs) {
      const seen = lines.find((l) => pattern.test(l))
      if (seen !== undefined) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const last = () => lines.slice(-10).join('\n')
        const waiter = {
          pattern,
          resolve: (line: string) => {
            clearTimeout(timer)
            resolve(line)
          },
        }
        const timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(new Error(`${spec.name}: no line matching ${pattern} in ${timeoutMs} ms; last lines:\n${last()}`))
        }, timeoutMs)
        waiters.add(waiter)
        void exit.then(() => {
          if (!waiters.delete(waiter)) return
          clearTimeout(timer)
          reject(new Error(`${spec.name} exited before printing a line matching ${pattern}; last lines:\n${last()}`))
        })
      })
    },
    async stop(killAfterMs = 15_000) {
      stopping = true
      if (!exited(proc)) {
        proc.kill('SIGTERM')
        const timer = setTimeout(() => {
          process.stderr.write(`${spec.name} did not stop within ${killAfterMs / 1000} s of SIGTERM; killing it\n`)
          proc.kill('SIGKILL')
        }, killAfterMs)
        await exit
        clearTimeout(timer)
      }
      live.delete(child)
    },
    async kill(signal) {
      stopping = true
      if (!exited(proc)) {
        proc.kill(signal)
        await exit
      }
      live.delete(child)
    },
    onLine(listener) {
      listeners.push(listener)
    },
  }
  live.add(child)
  proc.once('exit', (code, signal) => {
    if (!stopping) process.stderr.write(`${spec.name} exited early (code ${code}, signal ${signal}):\n${lines.slice(-30).join('\n')}\n`)
  })
  return child
}

/** Every descendant of `pid` (children, their children, ...), read from /proc; none when /proc cannot tell. */
export function descendantPidsSync(pid: number): number[] {
  const out: number[] = []
  const visit = (p: number) => {
    let children: number[] = []
    try {
      children = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/).filter((x) => x !== '').map(Number)
    } catch {
      return
    }
    for (const c of children) {
      out.push(c)
      visit(c)
    }
  }
  visit(pid)
  return out
}

/** SIGKILLs every child still running and all their descendants; synchronous, for an 'exit' handler. */
export function killAllSync(): void {
  for (const child of live) {
    if (exited(child.proc)) continue
    for (const pid of [...descendantPidsSync(child.pid), child.pid]) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  }
  live.clear()
}

/** Stops every child still running, all at once. */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((c) => c.stop()))
}

/** On SIGINT or SIGTERM, stops every child and exits with status 130. */
export function stopOnSignals(log: (message: string) => void): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping the service processes`)
      void stopAll().then(() => process.exit(130))
    })
  }
}

/** Runs a bench script's `main` and exits with the status it returns (0 when it returns nothing), or 1 on a throw. */
export function runMain(name: string, main: () => Promise<number | void>): void {
  main().then(
    (code) => process.exit(code ?? 0),
    (err: unknown) => {
      process.stderr.write(`${name} failed: ${(err as Error).stack ?? String(err)}\n`)
      process.exit(1)
    },
  )
}

/** A logger writing `[tag HH:MM:SS] message` lines to stdout. */
export function createBenchLog(tag: string): (message: string) => void {
  return (message) => process.stdout.write(`[${tag} ${new Date().toISOString().slice(11, 19)}] ${message}\n`)
}
