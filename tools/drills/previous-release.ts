/**
 * The upgrade drill's previous release: the commit of CHANGELOG.md's release before this one, extracted from git
 * (`git archive`) into a cache directory by commit, its dependencies installed (the current checkout's node_modules
 * linked when package-lock.json is the same at both commits, else `npm ci`) and built with its own `npm run build`.
 * A later run finds the build and reuses it.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A built release on disk. */
export interface BuiltRelease {
  commit: string
  /** The release's root (its package.json, node_modules and dist/). */
  dir: string
  /** `dist/src/cli.js` of the release: `presence-link` of that release. */
  cli: string
  /** Whether this run built it (false: found in the cache). */
  built: boolean
  /** How its node_modules came: `linked` or `npm ci`. */
  modules: 'linked' | 'npm ci'
}

/** Where built releases are kept between runs (by commit). */
export const RELEASE_CACHE = join(tmpdir(), 'presence-drills-releases')

/** Runs `file args` in `cwd`; resolves with its exit code and last output. */
function run(file: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number; tail: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, [...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    const keep = (chunk: Buffer) => {
      out = (out + chunk.toString('utf8')).slice(-4000)
    }
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    child.once('error', reject)
    child.once('exit', (code) => resolve({ code: code ?? 1, tail: out.trim().split('\n').slice(-8).join(' | ') }))
  })
}

async function must(what: string, file: string, args: readonly string[], cwd: string, env?: Record<string, string>): Promise<void> {
  const { code, tail } = await run(file, args, cwd, env)
  if (code !== 0) throw new Error(`${what} failed (exit ${code}): ${tail}`)
}

/** Builds (or finds) the release at `commit` of the repository at `root`. */
export async function previousRelease(root: string, commit: string, log: (message: string) => void): Promise<BuiltRelease> {
  const dir = join(RELEASE_CACHE, commit)
  const marker = join(dir, '.drill-built')
  const cli = join(dir, 'dist/src/cli.js')
  if ((await run('git', ['cat-file', '-e', `${commit}^{commit}`], root)).code !== 0) {
    throw new Error(`the previous release's commit ${commit} is not in the repository at ${root} (a shallow clone? git fetch --unshallow)`)
  }
  const sameLock = (await run('git', ['diff', '--quiet', commit, 'HEAD', '--', 'package-lock.json'], root)).code === 0
  const modules = sameLock ? 'linked' : 'npm ci'
  if (existsSync(marker) && existsSync(cli)) return { commit, dir, cli, built: false, modules }
  log(`upgrade: building ${commit} in ${dir} (node_modules: ${modules})`)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  await must(`git archive ${commit}`, 'sh', ['-c', `git -C "$ROOT" archive "$COMMIT" | tar -x -C "$DIR"`], root, { ROOT: root, COMMIT: commit, DIR: dir })
  if (sameLock) symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir')
  else await must(`npm ci in ${dir}`, 'npm', ['ci', '--no-audit', '--no-fund'], dir)
  // The archive has no .git: the build names its commit from COMMIT (scripts/write-build-info.mjs).
  await must(`npm run build in ${dir}`, 'npm', ['run', 'build'], dir, { COMMIT: commit })
  writeFileSync(marker, `${new Date().toISOString()}\n`)
  return { commit, dir, cli, built: true, modules }
}

/**
 * The script that makes a world's API key and codes with a release's own services (its dist/), on the schema its own
 * migrate made: this checkout's services read columns the previous release's schema does not have yet (codes.share).
 * Prints one JSON line `{"key": ..., "codes": [...]}`.
 */
const SEED_SCRIPT = `
import { loadConfig } from './dist/src/config.js'
import { createProcessContext } from './dist/src/runtime/process-context.js'
import { openDatabase, openRedis } from './dist/src/runtime/storage.js'
import { buildApiKeyService, buildCodeService } from './dist/src/runtime/services.js'
import { createCodeCache } from './dist/src/redis/code-cache.js'
const [count, base] = process.argv.slice(2)
const ctx = createProcessContext('seed', loadConfig())
const db = await openDatabase(ctx, 4, false)
const redis = await openRedis(ctx, 'request', 'seed')
const key = await buildApiKeyService(db, redis, ctx.keys).create('drills')
if (!key.ok) throw new Error('could not create the drills API key')
const service = buildCodeService(db, createCodeCache(redis, ctx.keys))
const codes = []
for (let i = 0n; i < BigInt(count); i++) codes.push((await service.issue(String(BigInt(base) + i))).code.code)
process.stdout.write(JSON.stringify({ key: key.key, codes }) + '\\n')
await ctx.shutdown.run('seeded')
process.exit(0)
`

/** Makes `count` codes for chat users `base`, `base + 1`, ... and an API key through `release`'s own services. */
export async function seedWithRelease(release: BuiltRelease, env: Record<string, string>, count: number, base: bigint): Promise<{ key: string; codes: string[] }> {
  const script = join(release.dir, 'drill-seed.mjs')
  writeFileSync(script, SEED_SCRIPT)
  const out = join(release.dir, `drill-seed-${process.pid}.json`)
  await must('seeding the world with the previous release', 'bash', ['-c', 'exec "$0" "$1" "$2" "$3" > "$4"', process.execPath, script, String(count), String(base), out], release.dir, { ...env, LOG_LEVEL: 'warn' })
  const last = readFileSync(out, 'utf8').trim().split('\n').filter((l) => l.startsWith('{"key"')).pop()
  rmSync(out, { force: true })
  if (last === undefined) throw new Error('seeding the world with the previous release printed no result')
  return JSON.parse(last) as { key: string; codes: string[] }
}
