/**
 * `presence-link backup` and `restore` with the real mariadb-dump and mariadb against the real MariaDB: a backup of a
 * database with rows, restored into an empty one, holds the same rows (codes and API keys at versions past any copy
 * written before); a restore into a database with tables is refused unless --force; a cut-off file is refused.
 */
import { mkdtemp, readdir, rm, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { sql, type Kysely } from 'kysely'
import t from 'tap'
import { runCommand } from '../../src/cli/dispatch.js'
import { createLogger } from '../../src/lib/logger.js'
import { RESTORE_VERSION_JUMP } from '../../src/mysql/model/backup-file.js'
import type { Database } from '../../src/mysql/schema.js'
import { createProcessContext, type ProcessContext } from '../../src/runtime/process-context.js'
import { openDatabase } from '../../src/runtime/storage.js'
import { seedEntries } from '../helpers/log-entry-seed.js'
import { dropEverything, startStack, testConfig, uniqueName, type Stack, type Teardown } from '../helpers/stack.js'

let stack: Stack
let dir: string

t.before(async () => {
  stack = await startStack(t, { front: false, consumers: [] })
  dir = await mkdtemp(join(tmpdir(), 'pl-backup-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
})

/** A context on a database of its own, dropped at teardown. */
function scratchContext(t: Teardown): ProcessContext {
  const name = uniqueName()
  const ctx = createProcessContext('test', testConfig(name), createLogger('test', 'silent'))
  t.teardown(async () => {
    await ctx.shutdown.run('test done')
    await dropEverything(ctx.config, name)
  })
  return ctx
}

/** Every row of the tables the round trip compares, versions aside. */
async function contents(db: Kysely<Database>) {
  return {
    codes: await db.selectFrom('codes').select(['code', 'chat_user_id', 'state', 'platform_user_id']).orderBy('code').execute(),
    apiKeys: await db.selectFrom('api_keys').select(['name', 'secret_hash', 'revoked_at']).orderBy('name').execute(),
    entries: await db.selectFrom('log_entries').select(['id', 'dedupe_key', 'description', 'delivery_state', 'received_at']).orderBy('id').execute(),
    migrations: (await sql<{ name: string }>`SELECT name FROM schema_migrations ORDER BY name`.execute(db)).rows,
  }
}

const versions = async (db: Kysely<Database>, table: 'codes' | 'api_keys') =>
  (await sql<{ v: string }>`SELECT CAST(version AS CHAR) AS v FROM ${sql.table(table)} ORDER BY version`.execute(db)).rows.map((r) => BigInt(r.v))

t.test('backup, then restore into an empty database, holds every row', async (t) => {
  for (const user of ['300000000000000001', '300000000000000002', '300000000000000003']) await stack.codes.issue(user)
  await seedEntries(stack.db, { count: 50, ageDays: 1, state: 'sent', tag: 'round-trip' })
  const original = await contents(stack.db)
  t.equal(original.codes.length, 3)

  const out = await runCommand(stack.ctx, ['backup', '--out', dir])
  t.equal(out.exitCode, 0, out.lines.join('\n'))
  const files = await readdir(dir)
  t.equal(files.length, 1, 'one file, nothing half-written beside it')
  const file = join(dir, files[0]!)
  t.match(files[0], /^presence-link-pl_t[0-9a-f]{10}-\d{8}T\d{6}Z\.sql\.gz$/)
  t.match(out.lines, [new RegExp(`^backed up database pl_t[0-9a-f]{10} to ${file.replace(/[.]/g, '\\.')} \\(\\d+ bytes\\)$`)])
  t.match(gunzipSync(await readFile(file)).toString(), /CREATE TABLE `log_entries`/)

  const target = scratchContext(t)
  const restored = await runCommand(target, ['restore', file])
  t.equal(restored.exitCode, 0, restored.lines.join('\n'))
  const name = target.config.databaseUrl.split('/').at(-1)!
  t.same(restored.lines, [
    `restored ${file} into database ${name} (${(await sql<{ n: number }>`SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE()`.execute(stack.db)).rows[0]!.n} tables, migrated to the latest schema)`,
    "3 codes and 1 API keys got new versions: a running worker's reconciler rewrites their Redis copies from MySQL",
  ])
  const db = await openDatabase(target, 2, false)
  t.same(await contents(db), original, 'the same rows')
  const before = await versions(stack.db, 'codes')
  t.same(await versions(db, 'codes'), before.map((v) => v + BigInt(RESTORE_VERSION_JUMP)), 'codes moved past any copy')
  t.same(await versions(db, 'api_keys'), (await versions(stack.db, 'api_keys')).map((v) => v + BigInt(RESTORE_VERSION_JUMP)))

  const tables = restored.lines[0]!.match(/\((\d+) tables/)![1]
  t.same(await runCommand(target, ['restore', file]), {
    lines: [`error: database ${name} is not empty (${tables} tables): restore into an empty database, or add --force to replace the tables the backup holds`],
    exitCode: 1,
  })
  await db.deleteFrom('log_entries').execute()
  const forced = await runCommand(target, ['restore', '--force', file])
  t.equal(forced.exitCode, 0, forced.lines.join('\n'))
  t.equal((await contents(db)).entries.length, 50, '--force replaces the tables the backup holds')
})

t.test('a cut-off or missing file is refused before anything runs', async (t) => {
  const target = scratchContext(t)
  const whole = join(dir, (await readdir(dir))[0]!)
  const cut = join(dir, 'cut.sql')
  const text = gunzipSync(await readFile(whole)).toString()
  await writeFile(cut, text.slice(0, Math.floor(text.length / 2)))
  t.same(await runCommand(target, ['restore', cut]), { lines: [`error: ${cut} is not a complete backup: its last line is not "-- Dump completed ..."`], exitCode: 1 })
  t.same(await runCommand(target, ['restore', join(dir, 'none.sql.gz')]), { lines: [`error: ${join(dir, 'none.sql.gz')} is not a file that can be read`], exitCode: 1 })
  t.same(await runCommand(target, ['restore', dir]), { lines: [`error: ${dir} is not a file that can be read`], exitCode: 1 })
  t.same(await runCommand(target, ['restore']), {
    lines: ['error: restore needs FILE: a file presence-link backup wrote', 'usage: presence-link restore FILE [--force]', 'run `presence-link restore --help` for details'],
    exitCode: 64,
  })
  const db = await openDatabase(target, 1, false)
  t.equal(Number((await sql<{ n: number }>`SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE()`.execute(db)).rows[0]!.n), 0, 'nothing ran')
})
