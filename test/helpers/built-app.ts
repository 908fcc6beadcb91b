/**
 * The project built from source into a temporary copy of the Docker image's layout (package.json beside dist/,
 * node_modules linked), and `serve` run from it: what `npm start` and the image run, without a TS loader per child.
 */
import { execFile, spawn } from 'node:child_process'
import { copyFile, cp, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { descendants, jsonEntries } from './parts.js'
import type { Stack, Teardown } from './stack.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** Builds into a fresh temporary directory (removed at teardown) and returns the app's root. Only emits: type errors are `tsc --noEmit`'s job. */
export async function buildApp(t: Teardown, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const app = join(dir, 'app')
  await mkdir(app)
  await promisify(execFile)(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(app, 'dist'), '--noCheck', '--sourceMap', 'false'], { cwd: ROOT })
  // As `npm run build`: the Lua scripts are read from beside the compiled redis modules.
  await cp(join(ROOT, 'src/redis/scripts'), join(app, 'dist/src/redis/scripts'), { recursive: true })
  await copyFile(join(ROOT, 'package.json'), join(app, 'package.json'))
  await symlink(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'dir')
  return app
}

/** A running service tree started from a built app. */
export interface RunningService {
  pid: number
  exited: Promise<void>
  /** Resolves with the exit status (null when killed by a signal) once its output is closed too (every part gone). */
  exitCode: Promise<number | null>
  /** Everything it printed so far, stdout and stderr. */
  output(): string
  /** The JSON log lines so far (of every part: they share serve's stdout). */
  entries(): Array<Record<string, unknown>>
  /** Remembers the process tree as it is now, so teardown kills what a failure leaves even once re-parented. */
  rememberTree(): void
}

/**
 * Starts `command args` (serve, or `npm start`) in `app` against the stack's Redis and MySQL in sandbox mode, one
 * front worker, rate limits off; `env` overrides. Every process of its tree is killed at teardown.
 */
export function startService(t: Teardown, app: string, stack: Stack, command: string, args: readonly string[], env: Record<string, string>): RunningService {
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
      METRICS_PORT: '0',
      WORKER_METRICS_PORT: '0',
      GATEWAY_METRICS_PORT: '0',
      FRONT_WORKERS: '1',
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (out += d.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const exitCode = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
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
  return {
    pid: child.pid!,
    exited,
    exitCode,
    output: () => out,
    entries: () => jsonEntries(out.split('\n')),
    rememberTree: () => {
      for (const pid of descendants(child.pid!)) seen.add(pid)
    },
  }
}
