/**
 * The README opens with who reads it (run it, connect a game, add the bot, develop) and the page for each, before any
 * other section; every page it links exists; its set-up commands are the ones package.json has.
 */
import { existsSync, readFileSync } from 'node:fs'
import t from 'tap'

const root = new URL('../', import.meta.url)
const readme = readFileSync(new URL('README.md', root), 'utf8')

t.test('the first section is the role table, one row per reader, each linking its page', async (t) => {
  const firstSection = /^## (.+)$/m.exec(readme)?.[1]
  t.equal(firstSection, 'Who you are')
  const table = readme.split('## Who you are')[1]!.split(/^## /m)[0]!
  const rows = table.split('\n').filter((l) => l.startsWith('| **'))
  t.same(
    rows.map((r) => /^\| \*\*([^*]+)\*\*/.exec(r)?.[1]),
    ['run it', 'connect a game', 'add the bot', 'develop'],
  )
  const firstPage = (row: string) => /\]\(([^)#]+)/.exec(row.split(' | ')[1] ?? '')?.[1]
  t.same(rows.map((r) => /\]\((#?[^)]+)\)/.exec(r.split(' | ')[1] ?? '')?.[1]), ['#set-up', 'docs/roblox.md', 'docs/discord.md', 'docs/development.md'])
  t.same(rows.map(firstPage).slice(1), ['docs/roblox.md', 'docs/discord.md', 'docs/development.md'])
})

t.test('every relative link of the README names a file that exists', async (t) => {
  const links = [...readme.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!).filter((l) => !/^(?:https?:|#)/.test(l))
  t.ok(links.length > 20, `${links.length} links`)
  t.same(links.filter((l) => !existsSync(new URL(l.split('#')[0]!, root))), [], 'no broken link')
})

t.test('the set-up commands are true: npm ci, npm start, npm test and their scripts', async (t) => {
  t.match(readme, /^npm ci {7}# installs everything$/m)
  t.match(readme, /^npm start {4}# builds \(only when the sources changed\), migrates, runs the whole service/m)
  t.match(readme, /^npm test {5}# the test suite/m)
  const { scripts } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: Record<string, string> }
  t.equal(scripts.start, 'exec node dist/src/serve.js')
  t.equal(scripts.prestart, 'node scripts/build-if-changed.mjs')
  t.equal(scripts.test, 'tap')
})
