/**
 * docs/privacy.md's data inventory is the schema and the key list: every column a migrated database really has (read
 * from information_schema) has its row in the MySQL table, and every key of src/redis/keys.ts its row in the Redis
 * table, each marked personal yes or no, with what it holds, who reads it and when it is deleted. A new column or key
 * fails here until it is documented.
 */
import { readFileSync } from 'node:fs'
import { sql } from 'kysely'
import t, { type Test } from 'tap'
import { startStack } from '../helpers/stack.js'

const doc = readFileSync(new URL('../../docs/privacy.md', import.meta.url), 'utf8')
const keysSource = readFileSync(new URL('../../src/redis/keys.ts', import.meta.url), 'utf8')

/** The rows (cells trimmed, header and rule left out) of the first table after the heading `heading`. */
function tableAfter(heading: string): string[][] {
  const at = doc.indexOf(`\n${heading}\n`)
  if (at < 0) return []
  const table: string[][] = []
  for (const line of doc.slice(at).split('\n').slice(2)) {
    if (line.startsWith('|')) table.push(line.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim()))
    else if (table.length > 0) break
  }
  return table.slice(2)
}

const unquote = (cell: string) => cell.replace(/^`|`$/g, '')

function checkRows(t: Test, rows: string[][]): void {
  for (const row of rows) {
    t.equal(row.length, 5, `${row[0]}: five cells`)
    t.match(row[1], /^(yes|no)$/, `${row[0]}: personal is yes or no`)
    t.not(row[4], '', `${row[0]}: says when it is deleted`)
    if (row[1] === 'yes') t.not(row[2], '', `${row[0]}: a personal field says what it holds`)
  }
}

t.test('the MySQL inventory is every column of the migrated schema', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const { rows } = await sql<{ t: string; c: string }>`
    SELECT TABLE_NAME AS t, COLUMN_NAME AS c FROM information_schema.COLUMNS
    WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'schema_migrations%'
  `.execute(stack.db)
  const schema = rows.map((r) => `${r.t}.${r.c}`).sort()
  t.ok(schema.includes('codes.share'), 'the schema was read')
  const table = tableAfter('### MySQL')
  t.same(table.map((row) => unquote(row[0]!)).sort(), schema, 'one row per column, no more')
  checkRows(t, table)
})

t.test('the Redis inventory is every key of src/redis/keys.ts', async (t) => {
  const keys = [...keysSource.matchAll(/^ \* \| `(\{p\}:[^`]+)` \|/gm)].map((m) => m[1]!).sort()
  t.ok(keys.length > 20, `${keys.length} keys read from keys.ts`)
  const table = tableAfter('### Redis')
  t.same(table.map((row) => unquote(row[0]!)).sort(), keys, 'one row per key, no more')
  checkRows(t, table)
})

t.test('the template policy names the portal fields and every user command', async (t) => {
  for (const text of ['Privacy Policy URL', 'Terms of Service URL', '/share', '/pause', '/mydata', '/forget']) t.match(doc.slice(doc.indexOf('## Template privacy policy')), text)
})
