/**
 * CHANGELOG.md has a section for package.json's version and for every earlier release, each with its migrations and
 * its upgrade notes, and names every migration the code has; operations.md's "Upgrading" points to it.
 */
import { readFileSync } from 'node:fs'
import t from 'tap'
import { MIGRATIONS } from '../src/mysql/migrate.js'

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8')
const changelog = read('CHANGELOG.md')
const { version } = JSON.parse(read('package.json')) as { version: string }

/** The `## X.Y.Z ...` sections, by version. */
function sections(): Map<string, string> {
  const out = new Map<string, string>()
  const parts = changelog.split(/^## /m).slice(1)
  for (const part of parts) {
    const m = /^(\d+\.\d+\.\d+)\b/.exec(part)
    if (m !== null) out.set(m[1]!, part)
  }
  return out
}

t.test('the current version is the first section; every release has migrations and upgrade notes', async (t) => {
  const found = sections()
  t.equal([...found.keys()][0], version, "the newest section is package.json's version")
  t.ok(found.has('0.1.0'), 'the first release is there too')
  for (const [v, text] of found) {
    t.match(text, /^### Migrations$/m, `${v}: its migrations`)
    t.match(text, /^### Upgrading/m, `${v}: how to upgrade to it`)
  }
})

t.test('every migration is named in the release that brings it, once', async (t) => {
  for (const name of Object.keys(MIGRATIONS)) {
    const holders = [...sections()].filter(([, text]) => new RegExp(`^(?:- )?.*\`${name}\``, 'm').test(text.split('### Migrations')[1]?.split('###')[0] ?? ''))
    t.equal(holders.length, 1, `${name} is in one release's migrations`)
  }
})

t.test('the upgrade order and forward compatibility are stated, and operations.md points here', async (t) => {
  t.match(changelog, /\*\*Upgrade order: fronts first, then workers, then gateways\.\*\*/)
  t.match(changelog, /\*\*Migrations stay forward-compatible for one release\.\*\*/)
  const ops = read('docs/operations.md')
  t.match(ops, /^## Upgrading$/m)
  t.match(ops, /\[CHANGELOG\.md\]\(\.\.\/CHANGELOG\.md\)/)
  t.match(ops, /\*\*fronts first, then workers, then gateways\.\*\*/)
})
