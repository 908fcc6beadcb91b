/** Runs an entry point of the app buildApp() built (`dist/src/cli.js` unless told) as a child process, for CLI tests. */
import { spawn, type ChildProcessByStdio } from 'node:child_process'
import { join } from 'node:path'
import type { Readable } from 'node:stream'

/** How a command line ended: its exit status (null when it was killed) and what it printed on each stream. */
export interface Ran {
  code: number | null
  stdout: string
  stderr: string
}

/** Where to run and for how long. */
export interface RunOptions {
  /** The built entry point, relative to the app. */
  entry?: string
  /** Kill it (SIGKILL) after this long; `code` is then null. */
  withinMs?: number
}

/** Starts `node <app>/<entry> ARGS` in `app`, with `env` on top of ours; stdout and stderr piped. */
export function startBuilt(app: string, args: readonly string[], env: Record<string, string>, entry = 'dist/src/cli.js'): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, [join(app, entry), ...args], { cwd: app, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
}

/** Runs `node <app>/<entry> ARGS` to its end and collects its output. */
export function runBuilt(app: string, args: readonly string[], env: Record<string, string>, options: RunOptions = {}): Promise<Ran> {
  const child = startBuilt(app, args, env, options.entry)
  const timer = options.withinMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.withinMs)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}
