/**
 * The project built from source into a temporary copy of the Docker image's layout (package.json beside dist/,
 * node_modules linked), shared by every test file of the same sources, and `serve` run from it: what `npm start` and
 * the image run, without a TS loader per child.
 */
import { execFile, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { copyFile, cp, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { descendants, jsonEntries } from './parts.js'
import type { Stack, Teardown } from './stack.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** What a build depends on: the sources it compiles and the files that configure it. */
const BUILD_INPUTS = ['src', 'workers', 'package.json', 'tsconfig.json', 'tsconfig.build.json']

/** Builds of other sources older than this are removed when a new build is made. */
const OLD_BUILD_MS = 60 * 60_000

/** A build in progress for longer than this was abandoned (its test run killed): another may take over. */
const STALE_BUILD_MS = 5 * 60_000

async function filesUnder(path: string): Promise<string[]> {
  const info = await stat(join(ROOT, path))
  if (!info.isDirectory()) return [path]
  const entries = await readdir(join(ROOT, path), { withFileTypes: true })
  return (await Promise.all(entries.map((e) => filesUnder(`${path}/${e.name}`)))).flat()
}

/** A digest of every build input's path and content: equal digests, equal builds. */
async function sourceDigest(): Promise<string> {
  const hash = createHash('sha256')
  for (const file of (await Promise.all(BUILD_INPUTS.map(filesUnder))).flat().sort()) {
    hash.update(`${file}\0`).update(await readFile(join(ROOT, file))).update('\0')
  }
  return hash.digest('hex').slice(0, 16)
}

async function compileInto(app: string): Promise<void> {
  await mkdir(app, { recursive: true })
  await promisify(execFile)(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(app, 'dist'), '--noCheck', '--sourceMap', 'false'], { cwd: ROOT })
  // As `npm run build`: the Lua scripts are read from beside the compiled redis modules.
  await cp(join(ROOT, 'src/redis/scripts'), join(app, 'dist/src/redis/scripts'), { recursive: true })
  await copyFile(join(ROOT, 'package.json'), join(app, 'package.json'))
  await symlink(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'dir')
}

/**
 * The app built from the current sources and returns its root. The build is shared: every test file (tap runs them
 * in parallel processes) that asks for the same sources gets one build, made by the first under a lock (a folder
 * created atomically) while the others wait for it; builds of other sources an hour old are removed. Processes started from it
 * write nothing into it. Only emits: type errors are `tsc --noEmit`'s job.
 */
export async function buildApp(_t: Teardown, _prefix?: string): Promise<string> {
  const cache = join(tmpdir(), 'presence-link-built')
  await mkdir(cache, { recursive: true })
  const key = await sourceDigest()
  const app = join(cache, key)
  const lock = `${app}.lock`
  for (;;) {
    if (existsSync(join(app, 'built'))) return app
    try {
      await mkdir(lock)
    } catch {
      const since = await stat(lock).then((s) => Date.now() - s.mtimeMs, () => 0)
      if (since > STALE_BUILD_MS) await rm(lock, { recursive: true, force: true })
      await new Promise((r) => setTimeout(r, 200))
      continue
    }
    try {
      if (existsSync(join(app, 'built'))) return app
      // Builds of other sources an hour old are gone (a run on other sources at the same time may still use newer ones).
      for (const old of await readdir(cache)) {
        const age = await stat(join(cache, old)).then((s) => Date.now() - s.mtimeMs, () => 0)
        if (!old.startsWith(key) && age > OLD_BUILD_MS) await rm(join(cache, old), { recursive: true, force: true })
      }
      await rm(app, { recursive: true, force: true })
      await compileInto(app)
      await writeFile(join(app, 'built'), new Date().toISOString())
      return app
    } finally {
      await rm(lock, { recursive: true, force: true })
    }
  }
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
