/**
 * `presence-link backup` and `restore`: a consistent, dated dump of the service's database (mariadb-dump in one
 * transaction), and its load into an empty database followed by the migrations and the versions that make the
 * reconciler rewrite every Redis copy. What a restore loses and how the service converges: docs/operations.md
 * (Backup and restore). The last line is the result.
 */
import { mkdir, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { parseDatabaseUrl } from '../mysql/connection.js'
import { advanceCopyVersions, countTables, dumpDatabase, dumpFileComplete, loadDump } from '../mysql/dump.js'
import { migrateToLatest } from '../mysql/migrate.js'
import { backupFileName, DUMP_COMPLETED } from '../mysql/model/backup-file.js'
import type { ProcessContext } from '../runtime/process-context.js'
import { openDatabase } from '../runtime/storage.js'
import { usage, type CommandOutput } from './command.js'

function fail(message: string): CommandOutput {
  return { lines: [`error: ${message}`], exitCode: 1 }
}

/** `presence-link backup [--out DIR]`. */
export async function backupCommand(ctx: ProcessContext, opts: { out: string }): Promise<CommandOutput> {
  const target = parseDatabaseUrl(ctx.config.databaseUrl)
  const dir = resolve(opts.out)
  await mkdir(dir, { recursive: true })
  const file = join(dir, backupFileName(target.database, new Date()))
  const { bytes } = await dumpDatabase(target, file)
  ctx.log.info({ file, bytes, database: target.database }, 'backup written')
  return { lines: [`backed up database ${target.database} to ${file} (${bytes} bytes)`], exitCode: 0 }
}

/** `presence-link restore FILE [--force]`. */
export async function restoreCommand(ctx: ProcessContext, file: string, opts: { force: boolean }): Promise<CommandOutput> {
  if (file === '') return usage('restore needs FILE: a file presence-link backup wrote')
  const target = parseDatabaseUrl(ctx.config.databaseUrl)
  const path = resolve(file)
  const isFile = await stat(path).then((s) => s.isFile(), () => false)
  if (!isFile) return fail(`${file} is not a file that can be read`)
  if (!(await dumpFileComplete(path))) return fail(`${file} is not a complete backup: its last line is not "${DUMP_COMPLETED} ..."`)
  const db = await openDatabase(ctx, 2, false)
  const before = await countTables(db)
  if (before > 0 && !opts.force) {
    return fail(
      `database ${target.database} is not empty (${before} tables): restore into an empty database, or add --force to replace the tables the backup holds`,
    )
  }
  await loadDump(target, path)
  const migrated = await migrateToLatest(db)
  for (const r of migrated.results ?? []) ctx.log.info({ migration: r.migrationName, status: r.status }, 'migration')
  const moved = await advanceCopyVersions(db)
  ctx.log.info({ file: path, database: target.database, ...moved }, 'backup restored')
  return {
    lines: [
      `restored ${path} into database ${target.database} (${await countTables(db)} tables, migrated to the latest schema)`,
      `${moved.codes} codes and ${moved.apiKeys} API keys got new versions: a running worker's reconciler rewrites their Redis copies from MySQL`,
    ],
    exitCode: 0,
  }
}
