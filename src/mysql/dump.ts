/**
 * Dumps and restores the service's database with the MariaDB client programs (`mariadb-dump`, `mariadb`; the older
 * names `mysqldump`, `mysql` when those are missing): Debian's `mariadb-client`. A dump is written gzipped beside
 * its final name and renamed only once mariadb-dump has exited 0 and its last line says the dump completed, so a
 * backup file is never half-written. A restore reads the file through once to check it is complete before any
 * statement runs.
 */
import { spawn } from 'node:child_process'
import { createReadStream, createWriteStream } from 'node:fs'
import { rename, rm, stat } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip, createGzip } from 'node:zlib'
import { sql, type Kysely } from 'kysely'
import { clientConnection, dumpArgs, dumpComplete, RESTORE_VERSION_JUMP, type DumpTarget } from './model/backup-file.js'

/** Keeps the last non-empty line of a text stream that passes through. */
function lastLineTracker(): { push(chunk: Buffer): void; last(): string } {
  let tail = ''
  return {
    push(chunk) {
      tail = (tail + chunk.toString('utf8')).slice(-4096)
    },
    last: () => tail.trimEnd().split('\n').at(-1) ?? '',
  }
}

/** Runs the first of `programs` that exists; rejects with ENOENT only when none does. */
async function spawnFirst(programs: readonly string[], args: string[], env: Record<string, string>, stdin: 'pipe' | 'ignore') {
  for (const program of programs) {
    const child = spawn(program, args, { env: { ...process.env, ...env }, stdio: [stdin, 'pipe', 'pipe'] })
    const started = await new Promise<boolean>((resolve, reject) => {
      child.once('spawn', () => resolve(true))
      child.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? resolve(false) : reject(err)))
    })
    if (started) return { child, program }
  }
  throw new Error(`none of ${programs.join(', ')} is installed: install the MariaDB client (Debian: apt-get install mariadb-client)`)
}

/** Collects a child's stderr and resolves with its exit code once it has exited. */
function exited(child: ReturnType<typeof spawn>): Promise<{ code: number | null; stderr: string }> {
  let stderr = ''
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-4000)))
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stderr: stderr.trim() })))
}

/** Dumps `target`'s database into `file` (gzipped SQL); returns its size in bytes. */
export async function dumpDatabase(target: DumpTarget, file: string): Promise<{ bytes: number }> {
  const partial = `${file}.partial`
  const { child, program } = await spawnFirst(['mariadb-dump', 'mysqldump'], dumpArgs(target), clientConnection(target).env, 'ignore')
  const done = exited(child)
  const tail = lastLineTracker()
  child.stdout!.on('data', (chunk: Buffer) => tail.push(chunk))
  try {
    await pipeline(child.stdout!, createGzip(), createWriteStream(partial, { flags: 'wx', mode: 0o600 }))
    const { code, stderr } = await done
    if (code !== 0) throw new Error(`${program} failed (exit ${code}): ${stderr.split('\n')[0] ?? ''}`)
    if (!dumpComplete(tail.last())) throw new Error(`${program} stopped before the end of the dump`)
    await rename(partial, file)
  } catch (err) {
    child.kill()
    await rm(partial, { force: true })
    throw err
  }
  return { bytes: (await stat(file)).size }
}

/** The file's SQL, gunzipped when its name ends in `.gz`. */
function readDump(file: string): Readable {
  const raw = createReadStream(file)
  return file.endsWith('.gz') ? raw.pipe(createGunzip()) : raw
}

/** Whether `file` holds a whole dump (its last line says the dump completed); throws when it cannot be read. */
export async function dumpFileComplete(file: string): Promise<boolean> {
  const tail = lastLineTracker()
  for await (const chunk of readDump(file)) tail.push(chunk as Buffer)
  return dumpComplete(tail.last())
}

/** Runs the SQL of `file` against `target`'s database (which must exist). */
export async function loadDump(target: DumpTarget, file: string): Promise<void> {
  const { child, program } = await spawnFirst(['mariadb', 'mysql'], [...clientConnection(target).args, target.database], clientConnection(target).env, 'pipe')
  const done = exited(child)
  child.stdout!.resume()
  try {
    await pipeline(readDump(file), child.stdin!)
  } catch (err) {
    // The client exits at the first failed statement and closes its input: its own reason is the one to report.
    if ((err as NodeJS.ErrnoException).code !== 'EPIPE') throw err
  }
  const { code, stderr } = await done
  if (code !== 0) throw new Error(`${program} failed (exit ${code}): ${stderr.split('\n')[0] ?? ''}`)
}

/** The tables (and views) of the connection's database. */
export async function countTables(db: Kysely<any>): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE()`.execute(db)
  return Number(rows[0]?.n ?? 0)
}

/**
 * Moves every restored code's and API key's version past any Redis copy written before the restore
 * (RESTORE_VERSION_JUMP); `changed_at` moves too, so the reconciler's next pass rewrites their copies.
 */
export async function advanceCopyVersions(db: Kysely<any>): Promise<{ codes: number; apiKeys: number }> {
  const codes = await sql`UPDATE codes SET version = version + ${RESTORE_VERSION_JUMP}`.execute(db)
  const apiKeys = await sql`UPDATE api_keys SET version = version + ${RESTORE_VERSION_JUMP}`.execute(db)
  return { codes: Number(codes.numAffectedRows ?? 0), apiKeys: Number(apiKeys.numAffectedRows ?? 0) }
}
