/**
 * The "Machine" table's facts: CPU and cores, memory, OS, Node, the commit measured, the Redis and MySQL servers and
 * the installed package versions.
 */
import { execFile } from 'node:child_process'
import os from 'node:os'
import { readFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import type { Redis } from 'ioredis'
import { sql, type Kysely } from 'kysely'
import { bytes } from '../../harness/stats.js'

/** The machine and software a run measured, as the report prints them. */
export interface Machine {
  cpu: string
  cores: number
  memory: string
  os: string
  node: string
  /** The commit the measured build was made from (dist/src/build-info.json), and what differed from it then. */
  commit: string
  redis: string
  mysql: string
  /** `[package, version]` in report order. */
  packages: Array<[string, string]>
}

const PACKAGES = ['hyper-express', 'uWebSockets.js', 'bullmq', 'ioredis', 'kysely', 'mysql2', 'prom-client', 'rate-limiter-flexible', 'autocannon']

async function packageVersion(root: URL, name: string): Promise<string> {
  try {
    const pkg = JSON.parse(await readFile(new URL(`node_modules/${name}/package.json`, root), 'utf8')) as { name?: string; version?: string }
    // uWebSockets.js is an npm alias (see package.json overrides): its real name says which build runs.
    return name === 'uWebSockets.js' ? `${pkg.name ?? '?'}@${pkg.version ?? '?'}` : (pkg.version ?? '?')
  } catch {
    return 'not installed'
  }
}

/** The build's commit, with how many files of what the build compiles differed from it when the run began (git status). */
async function commitOf(root: URL): Promise<string> {
  let commit = 'unknown'
  try {
    commit = (JSON.parse(await readFile(new URL('dist/src/build-info.json', root), 'utf8')) as { commit?: string }).commit ?? 'unknown'
  } catch {
    // no build info: the run reports the commit as unknown
  }
  try {
    const { stdout } = await promisify(execFile)('git', ['status', '--porcelain', '--', 'src', 'workers', 'tools'], { cwd: root })
    const changed = stdout.split('\n').filter((l) => l.trim() !== '').length
    return changed === 0 ? commit : `${commit}, with ${changed} files under src/, workers/ and tools/ changed or added since`
  } catch {
    return commit
  }
}

/** Reads the machine's facts, asking Redis and MySQL for their versions and `root`'s node_modules for the packages'. */
export async function describeMachine(db: Kysely<any>, redis: Redis, root: URL): Promise<Machine> {
  const redisInfo = await redis.info('server')
  const version = await sql<{ v: string }>`SELECT VERSION() AS v`.execute(db)
  const packages: Array<[string, string]> = []
  for (const name of PACKAGES) packages.push([name, await packageVersion(root, name)])
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memory: bytes(os.totalmem()),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    commit: await commitOf(root),
    redis: /redis_version:(\S+)/.exec(redisInfo)?.[1] ?? '?',
    mysql: version.rows[0]?.v ?? '?',
    packages,
  }
}
