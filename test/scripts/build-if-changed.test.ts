/**
 * `npm start`'s prestart (scripts/build-if-changed.mjs) on a small project of its own: it builds a fresh checkout,
 * skips the build while dist/ is newer than every source (so a bad PORT is reported at once), builds again after a
 * source changes, and refuses to rebuild dist/ under a serve of that checkout that runs from it.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const SCRIPT = fileURLToPath(new URL('../../scripts/build-if-changed.mjs', import.meta.url))

const root = mkdtempSync(join(tmpdir(), 'pl-build-if-changed-'))
t.teardown(() => rmSync(root, { recursive: true, force: true }))
mkdirSync(join(root, 'src'))
writeFileSync(join(root, 'src/serve.ts'), 'export {}\n')
// The "build": writes dist/src/serve.js (a process that stays up, like serve) and counts itself.
writeFileSync(
  join(root, 'build.mjs'),
  "import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs'\n" +
    "mkdirSync('dist/src', { recursive: true })\n" +
    "writeFileSync('dist/src/serve.js', 'setInterval(() => {}, 1000)\\n')\n" +
    "appendFileSync('builds.log', 'built\\n')\n",
)
writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'fake', private: true, scripts: { build: 'node build.mjs' } }))

const run = () => spawnSync(process.execPath, [SCRIPT, '--root', root], { encoding: 'utf8' })
const builds = () => readFileSync(join(root, 'builds.log'), 'utf8').split('\n').filter(Boolean).length
/** Marks a file as changed now (after the last build, which started before the last run() returned). */
const touch = (file: string) => {
  const now = new Date()
  utimesSync(join(root, file), now, now)
}

t.test('a fresh checkout is built, and the stamp written', async (t) => {
  const out = run()
  t.equal(out.status, 0, out.stderr)
  t.match(out.stdout, /building dist\/: dist\/ has no build yet/)
  t.equal(builds(), 1)
  t.match(JSON.parse(readFileSync(join(root, 'dist/.build-stamp.json'), 'utf8')), { startedMs: Number, head: String })
})

t.test('nothing changed: no build', async (t) => {
  const out = run()
  t.equal(out.status, 0)
  t.match(out.stdout, /dist\/ is up to date with the sources: not building/)
  t.equal(builds(), 1)
})

t.test('a source changed: built again, naming the file', async (t) => {
  touch('src/serve.ts')
  const out = run()
  t.equal(out.status, 0)
  t.match(out.stdout, /building dist\/: src\/serve\.ts changed since dist\/ was built/)
  t.equal(builds(), 2)
  t.equal(run().status, 0)
  t.equal(builds(), 2, 'and not a third time')
})

t.test('a serve of this checkout running from dist/: up to date starts go on; a rebuild is refused', async (t) => {
  const serve = spawn(process.execPath, ['dist/src/serve.js'], { cwd: root, stdio: 'ignore' })
  t.teardown(() => serve.kill('SIGKILL'))
  await new Promise((resolve) => serve.once('spawn', resolve))
  t.equal(run().status, 0, 'nothing to build: the start goes on (and meets the taken port itself)')
  touch('package.json')
  const out = run()
  t.equal(out.status, 1)
  t.match(out.stderr, new RegExp(`not rebuilding dist/ \\(package\\.json changed since dist/ was built\\): a serve of this checkout runs from it \\(pid ${serve.pid}\\)`))
  t.equal(builds(), 2, 'dist/ untouched under the running serve')
  serve.kill('SIGKILL')
  await new Promise((resolve) => serve.once('exit', resolve))
  t.equal(run().status, 0)
  t.equal(builds(), 3, 'built once it stopped')
})

t.test('package.json runs it before every npm start', async (t) => {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { scripts: Record<string, string> }
  t.equal(pkg.scripts.prestart, 'node scripts/build-if-changed.mjs')
})
