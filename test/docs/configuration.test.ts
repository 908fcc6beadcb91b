/**
 * docs/configuration.md lists exactly the environment variables src/config.ts reads: a variable added to one and
 * not the other fails here.
 */
import { readFileSync } from 'node:fs'
import t from 'tap'
import { parseConfig } from '../../src/config.js'

const root = new URL('../../', import.meta.url)

/** Every name `parseConfig` looks up in the environment it is given, recorded by a proxy standing in for process.env. */
function namesParseConfigReads(): Set<string> {
  const read = new Set<string>()
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, key) {
      if (typeof key === 'string') read.add(key)
      return undefined
    },
  })
  parseConfig(env)
  return read
}

/** Names config.ts reads straight from process.env (`process.env.X`, `process.env['X']`), should it ever do so. */
function namesReadFromProcessEnv(source: string): Set<string> {
  const names = new Set<string>()
  for (const m of source.matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\])/g)) names.add(m[1] ?? m[2]!)
  return names
}

/** The first-column names of the table under "## Variables" in the doc. */
function namesTheDocLists(doc: string): Set<string> {
  const section = /^## Variables\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(doc)
  const names = new Set<string>()
  for (const m of (section?.[1] ?? '').matchAll(/^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/gm)) names.add(m[1]!)
  return names
}

const difference = (a: Set<string>, b: Set<string>): string[] => [...a].filter((x) => !b.has(x)).sort()

t.test('docs/configuration.md lists every variable src/config.ts reads, and no other', async (t) => {
  const source = readFileSync(new URL('src/config.ts', root), 'utf8')
  const doc = readFileSync(new URL('docs/configuration.md', root), 'utf8')
  const read = new Set([...namesParseConfigReads(), ...namesReadFromProcessEnv(source)])
  const listed = namesTheDocLists(doc)
  // Guards against an extraction that silently finds nothing (both sides empty would compare equal).
  t.ok(read.has('PORT') && read.has('DATABASE_URL'), 'the config variables were found')
  t.ok(listed.has('PORT') && listed.has('DATABASE_URL'), 'the doc table was found')
  t.same(difference(read, listed), [], 'read by src/config.ts but missing from docs/configuration.md')
  t.same(difference(listed, read), [], 'listed in docs/configuration.md but not read by src/config.ts')
})
