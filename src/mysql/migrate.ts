/** Runs the migrations (a static list, so it works the same from TypeScript sources and compiled output). */
import { setTimeout as sleep } from 'node:timers/promises'
import { Migrator, type Kysely, type Migration, type MigrationResultSet } from 'kysely'
import * as core from './migrations/0001-core.js'
import * as guildWhitelist from './migrations/0002-guild-whitelist.js'
import * as deliverySafety from './migrations/0003-delivery-safety.js'
import * as infractionPardons from './migrations/0004-infraction-pardons.js'
import * as copyVersions from './migrations/0005-copy-versions.js'
import * as pushTargets from './migrations/0006-push-targets.js'
import * as logSearch from './migrations/0007-log-search.js'
import * as deliveryDigest from './migrations/0010-delivery-digest.js'
import * as sandboxMarks from './migrations/0011-sandbox-marks.js'
import * as chatUserPrivacy from './migrations/0012-chat-user-privacy.js'
import { createDatabase, ensureDatabase, mysqlErrorReason } from './connection.js'
import { isLostConnection } from './model/lost-connection.js'

/** Every migration in order; new ones are appended here. */
export const MIGRATIONS: Record<string, Migration> = {
  '0001-core': core,
  '0002-guild-whitelist': guildWhitelist,
  '0003-delivery-safety': deliverySafety,
  '0004-infraction-pardons': infractionPardons,
  '0005-copy-versions': copyVersions,
  '0006-push-targets': pushTargets,
  '0007-log-search': logSearch,
  '0010-delivery-digest': deliveryDigest,
  '0011-sandbox-marks': sandboxMarks,
  '0012-chat-user-privacy': chatUserPrivacy,
}

/** The migrator of the service's migrations and its bookkeeping tables (tests move it to a given version). */
export function createMigrator(db: Kysely<any>): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  })
}

/** Migrates to the latest version; throws with the failing migration's name on error. */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet> {
  const result = await createMigrator(db).migrateToLatest()
  if (result.error !== undefined) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new Error(`migration ${failed} failed: ${String((result.error as Error).message ?? result.error)}`, { cause: result.error })
  }
  return result
}

/** How long `presence-link migrate` keeps trying after lost connections before it gives up. */
export const MIGRATE_RETRY_MS = 60_000

/**
 * Creates the database if needed and migrates it on a connection of its own, trying again (0.5 s, doubling to 8 s)
 * while the connection is lost under it (`Connection lost: The server closed the connection`, as right after a Galera
 * cluster forms), for at most `retryMs`; any other failure (a refused login, a failing migration) is thrown at once.
 * `onRetry` hears each lost attempt.
 */
export async function migrateWithRetry(
  url: string,
  onRetry: (reason: string, retryInMs: number) => void,
  retryMs = MIGRATE_RETRY_MS,
): Promise<MigrationResultSet> {
  const until = Date.now() + retryMs
  for (let attempt = 0; ; attempt++) {
    try {
      await ensureDatabase(url)
      const db = createDatabase(url, 1)
      try {
        return await migrateToLatest(db)
      } finally {
        await db.destroy().catch(() => undefined)
      }
    } catch (err) {
      const pause = Math.min(500 * 2 ** attempt, 8000)
      if (!isLostConnection(err) || Date.now() + pause > until) throw err
      onRetry(mysqlErrorReason(err), pause)
      await sleep(pause)
    }
  }
}
