/**
 * Tests mirror what they test: `test/P/N.test.ts`, or `test/P/N.<aspect>.test.ts` for another aspect of the same
 * thing, tests `src/P/N.*` or the repository's own `P/N.*` (a file or a folder: `workers/worker.ts`,
 * `docs/api.md`, `prometheus/alerts.yml`, `grafana/dashboards/`). The exceptions live in one folder, `test/system/`:
 * scenarios across several processes and checks of the whole repository.
 */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The folder of the tests that test the system as a whole rather than one file. */
export const SYSTEM = 'test/system/'

/** The candidates a test file may be testing (repository-relative, without extension), or null when it is exempt. */
export function subjectsOf(testPath: string): string[] | null {
  if (testPath.startsWith(SYSTEM) || !testPath.endsWith('.test.ts')) return null
  const rel = testPath.slice('test/'.length, -'.test.ts'.length)
  const slash = rel.lastIndexOf('/')
  const dir = rel.slice(0, slash + 1)
  const name = rel.slice(slash + 1).split('.')[0]!
  return [`src/${dir}${name}`, `${dir}${name}`]
}

/** The test files among `tests` whose subject is missing from `exists` (a path without extension, file or folder). */
export function misplaced(tests: readonly string[], exists: (stem: string) => boolean): string[] {
  return tests.filter((path) => {
    const subjects = subjectsOf(path)
    return subjects !== null && !subjects.some(exists)
  })
}

function walk(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return []
    const path = `${dir}/${entry.name}`
    return entry.isDirectory() ? walk(path) : [path]
  })
}

/** True when `stem` names a repository folder or a file `stem.<extension>`. */
function existsInRepo(stem: string): boolean {
  const slash = stem.lastIndexOf('/')
  const dir = slash === -1 ? '.' : stem.slice(0, slash)
  const base = stem.slice(slash + 1)
  try {
    if (statSync(join(ROOT, stem)).isDirectory()) return true
  } catch {
    // not a folder
  }
  try {
    return readdirSync(join(ROOT, dir)).some((entry) => entry.startsWith(`${base}.`) && !statSync(join(ROOT, dir, entry)).isDirectory())
  } catch {
    return false
  }
}

t.test('the checker', async (t) => {
  const repo = new Set(['src/http/respond', 'src/http/model/etag', 'workers/worker', 'docs/api', 'grafana/dashboards', 'src/serve'])
  const exists = (stem: string) => repo.has(stem)
  t.same(
    misplaced(
      [
        'test/http/respond.test.ts',
        'test/http/model/etag.test.ts',
        'test/serve.ports.test.ts',
        'test/workers/worker.stalled.test.ts',
        'test/docs/api.test.ts',
        'test/grafana/dashboards.test.ts',
        'test/system/anything.test.ts',
        'test/helpers/stack.ts',
      ],
      exists,
    ),
    [],
    'a test beside its file, an aspect, a repository file or folder, the system folder and helpers pass',
  )
  t.same(
    misplaced(['test/http/bind.test.ts', 'test/core/etag.test.ts', 'test/serve-ports.test.ts', 'test/http/etag.test.ts'], exists),
    ['test/http/bind.test.ts', 'test/core/etag.test.ts', 'test/serve-ports.test.ts', 'test/http/etag.test.ts'],
    'a test named for no file, in an old room, with a dash for a dot, or one folder off is reported',
  )
})

t.test('every test file sits at the path of what it tests, or in test/system/', async (t) => {
  const tests = walk('test').filter((p) => p.endsWith('.test.ts'))
  t.ok(tests.length > 100, `${tests.length} test files`)
  t.same(misplaced(tests, existsInRepo), [], 'no test file away from its subject')
})
