/**
 * `npm run bench` is the one writer of BENCHMARKS.md, in one run: no other tool names the file as a path (the partial
 * runs `bench:read-path` and `bench:streams` print their sections instead of appending them), and the npm script runs
 * bench.js alone. Before issue 23 the read-path run appended a section of its own run to the file, so the report's
 * first table and a later section disagreed.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

async function sources(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...(await sources(path)))
    else if (entry.name.endsWith('.ts')) out.push(path)
  }
  return out
}

/** A string literal that is a path to BENCHMARKS.md: `'BENCHMARKS.md'`, `'../../../BENCHMARKS.md'`. */
const PATH_TO_REPORT = /['"`](?:[^'"`\n]*\/)?BENCHMARKS\.md['"`]/

t.test('only tools/bench/bench.ts names BENCHMARKS.md as a file', async (t) => {
  const naming: string[] = []
  for (const file of await sources(join(ROOT, 'tools'))) {
    if (PATH_TO_REPORT.test(await readFile(file, 'utf8'))) naming.push(relative(ROOT, file))
  }
  t.same(naming, ['tools/bench/bench.ts'])
})

t.test('the pattern finds a path to the report and not the report named in prose', async (t) => {
  t.ok(PATH_TO_REPORT.test("await appendFile(new URL('../../../BENCHMARKS.md', import.meta.url), section)"))
  t.ok(PATH_TO_REPORT.test("const REPORT = new URL('BENCHMARKS.md', ROOT)"))
  t.notOk(PATH_TO_REPORT.test('`BENCHMARKS.md is written only by ${COMMANDS.full}`'))
  t.notOk(PATH_TO_REPORT.test(' * it never touches BENCHMARKS.md:'))
})

t.test('npm run bench runs bench.js alone, after building the tools', async (t) => {
  const scripts = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
  t.equal(scripts.bench, 'npm run build:tools && node dist/tools/bench/bench.js')
  t.match(scripts['bench:read-path'], /^npm run build:tools && node dist\/tools\/bench\/read-path\.js$/)
  t.match(scripts['bench:streams'], /^npm run build:tools && node dist\/tools\/bench\/streams\.js$/)
})
