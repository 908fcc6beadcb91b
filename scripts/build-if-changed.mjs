// `npm start`'s prestart: builds dist/ (`npm run build`) only when a source changed since the last build, so a
// configuration error (a bad PORT) shows in about a second instead of after a 12-18 s build, and a second start never
// rebuilds dist/ under a running one. "Changed": a file under src/ or workers/, a tsconfig, package.json,
// package-lock.json or the build-info script is newer than the stamp (dist/.build-stamp.json, written after a
// successful build with the time that build started), or git's HEAD moved (build_info names the commit).
// A start that would have to rebuild while a serve of this checkout runs from dist/ refuses instead (exit 1).
// Usage: node scripts/build-if-changed.mjs [--root DIR]   (the root defaults to this checkout)
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, readlinkSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const rootFlag = process.argv.indexOf('--root')
const root = resolve(rootFlag >= 0 ? process.argv[rootFlag + 1] : join(dirname(fileURLToPath(import.meta.url)), '..'))
const STAMP = join(root, 'dist/.build-stamp.json')
const SOURCE_DIRS = ['src', 'workers']
const SOURCE_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json', 'scripts/write-build-info.mjs']

/** The newest modification time (ms) of the files under `dir`, and one of them, recursively. */
function newestUnder(dir, found = { ms: 0, file: '' }) {
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return found
  }
  for (const e of entries) {
    const path = join(dir, e.name)
    if (e.isDirectory()) newestUnder(path, found)
    else if (e.isFile()) {
      const ms = statSync(path).mtimeMs
      if (ms > found.ms) Object.assign(found, { ms, file: path })
    }
  }
  return found
}

function newestSource() {
  const found = { ms: 0, file: '' }
  for (const d of SOURCE_DIRS) newestUnder(join(root, d), found)
  for (const f of SOURCE_FILES) {
    const path = join(root, f)
    if (existsSync(path) && statSync(path).mtimeMs > found.ms) Object.assign(found, { ms: statSync(path).mtimeMs, file: path })
  }
  return found
}

function gitHead() {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return 'none'
  }
}

/** Why dist/ must be built, or '' when it is up to date. */
function staleBecause(head) {
  if (!existsSync(join(root, 'dist/src/serve.js'))) return 'dist/ has no build yet'
  let stamp
  try {
    stamp = JSON.parse(readFileSync(STAMP, 'utf8'))
  } catch {
    return 'dist/ was not built by npm start (no dist/.build-stamp.json)'
  }
  if (stamp.head !== head) return 'the git commit changed since dist/ was built'
  const newest = newestSource()
  if (newest.ms > stamp.startedMs) return `${newest.file.slice(root.length + 1)} changed since dist/ was built`
  return ''
}

/** Pids of processes running this checkout's dist/src/serve.js (Linux /proc; none found elsewhere). */
function runningServes() {
  let pids
  try {
    pids = readdirSync('/proc').filter((p) => /^[0-9]+$/.test(p) && Number(p) !== process.pid)
  } catch {
    return []
  }
  const serve = join(root, 'dist/src/serve.js')
  return pids.filter((pid) => {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
      const cwd = readlinkSync(`/proc/${pid}/cwd`)
      return args.some((a) => a === serve || (resolve(cwd, a) === serve && a.endsWith('serve.js')))
    } catch {
      return false
    }
  })
}

const head = gitHead()
const why = staleBecause(head)
if (why === '') {
  console.log('dist/ is up to date with the sources: not building (npm run build forces a build)')
  process.exit(0)
}
const running = runningServes()
if (running.length > 0) {
  console.error(
    `presence-link: not rebuilding dist/ (${why}): a serve of this checkout runs from it (pid ${running.join(', ')}). ` +
      'Stop it first (Ctrl-C), then npm start again; a second service on the same ports would not start anyway.',
  )
  process.exit(1)
}
console.log(`building dist/: ${why}`)
const startedMs = Date.now()
const built = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' })
if (built.status !== 0) process.exit(built.status ?? 1)
writeFileSync(STAMP, `${JSON.stringify({ startedMs, head })}\n`)
