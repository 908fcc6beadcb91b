/** presence_link_build_info: the build step records version and commit, every registry reports them. */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { buildInfo, readBuildInfo } from '../../src/metrics/build-info.js'
import { DROPPED_DEFAULT_METRICS, createMetricsRegistry } from '../../src/metrics/registry.js'
import { parseScrape, sampleValue } from '../helpers/prometheus-text.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SCRIPT = join(ROOT, 'scripts/write-build-info.mjs')
const run = promisify(execFile)
const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }

async function gitHead(): Promise<string | undefined> {
  try {
    return (await run('git', ['rev-parse', 'HEAD'], { cwd: ROOT })).stdout.trim()
  } catch {
    return undefined
  }
}

t.test('the build step (scripts/write-build-info.mjs)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'pl-build-info-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const write = async (commit: string | undefined) => {
    const out = join(dir, `build-info-${Math.random().toString(36).slice(2)}.json`)
    const env = { ...process.env }
    delete env.COMMIT
    await run(process.execPath, [SCRIPT, out], { env: commit === undefined ? env : { ...env, COMMIT: commit } })
    return out
  }

  t.test('records the package version and the checkout commit', { skip: (await gitHead()) === undefined ? 'not a git checkout' : false }, async (t) => {
    const out = await write(undefined)
    t.same(JSON.parse(await readFile(out, 'utf8')), { version, commit: await gitHead() })
    t.same(readBuildInfo(out, ROOT), { version, commit: await gitHead(), node: process.version })
  })

  t.test('a COMMIT build variable (the Docker build argument) wins', async (t) => {
    const out = await write('0123456789ABCDEF0123456789abcdef01234567')
    t.equal(JSON.parse(await readFile(out, 'utf8')).commit, '0123456789abcdef0123456789abcdef01234567')
  })

  t.test('a COMMIT that is not a hash is ignored', async (t) => {
    for (const bad of ['', 'main', '"} 1\nfake_metric 1', 'abc']) {
      const out = await write(bad)
      t.not(JSON.parse(await readFile(out, 'utf8')).commit, bad, JSON.stringify(bad))
    }
  })
})

t.test('reading the build info', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'pl-build-info-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))

  t.test('without a build file (running from source): the package.json version, commit unknown', async (t) => {
    t.same(readBuildInfo(join(dir, 'missing.json'), join(ROOT, 'src/metrics')), { version, commit: 'unknown', node: process.version })
    t.same(buildInfo(), { version, commit: 'unknown', node: process.version })
  })

  t.test('a tampered file cannot inject label text', async (t) => {
    const file = join(dir, 'build-info.json')
    await writeFile(file, JSON.stringify({ version: '1.0.0"} 1\nevil 1', commit: { x: 1 } }))
    t.same(readBuildInfo(file, ROOT), { version: 'unknown', commit: 'unknown', node: process.version })
    await writeFile(file, 'not json')
    t.equal(readBuildInfo(file, ROOT).version, version, 'an unreadable file counts as missing')
  })
})

t.test('every registry reports its build and no gauge with a counter suffix', async (t) => {
  const m = parseScrape(await createMetricsRegistry().metrics())
  t.equal(sampleValue(m, 'presence_link_build_info', { version, commit: 'unknown', node: process.version }), 1)
  t.equal(m.types.get('presence_link_build_info'), 'gauge')
  for (const name of DROPPED_DEFAULT_METRICS) t.notOk(m.types.has(name), `${name} is left out`)
  t.equal(m.types.get('nodejs_active_handles'), 'gauge', 'the per-type gauges stay')
  for (const [name, type] of m.types) if (type !== 'counter') t.notMatch(name, /_total$/, `${name} (${type})`)
})
