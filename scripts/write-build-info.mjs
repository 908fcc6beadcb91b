// Build step (`npm run build`): writes dist/src/build-info.json, the version and commit that
// presence_link_build_info reports. The commit comes from the COMMIT environment variable of the build (the Docker
// build argument, since the image's build context has no .git), else from `git rev-parse HEAD`, else `unknown`.
// Git runs here, once per build, never in a running process.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = process.argv[2] ?? join(root, 'dist/src/build-info.json')

/** A commit hash as a label value: 7 to 40 lowercase hex digits, else undefined. */
function commitLabel(value) {
  const v = (value ?? '').trim().toLowerCase()
  return /^[0-9a-f]{7,40}$/.test(v) ? v : undefined
}

function gitCommit() {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  } catch {
    return undefined
  }
}

const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const commit = commitLabel(process.env.COMMIT) ?? commitLabel(gitCommit()) ?? 'unknown'
mkdirSync(dirname(out), { recursive: true })
writeFileSync(out, `${JSON.stringify({ version, commit })}\n`)
console.log(`build info: version ${version}, commit ${commit} -> ${out}`)
