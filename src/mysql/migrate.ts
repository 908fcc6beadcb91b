/** Runs the migrations (a static list, so it works the same from TypeScript sources and compiled output). */
import { Migrator, type Kysely, type Migration, type MigrationResultSet } from 'kysely'
import * as core from './migrations/0001-core.js'
import * as guildWhitelist from './migrations/0002-guild-whitelist.js'
import * as deliverySafety from './migrations/0003-delivery-safety.js'
import * as infractionPardons from './migrations/0004-infraction-pardons.js'
import * as copyVersions from './migrations/0005-copy-versions.js'
import * as pushTargets from './migrations/0006-push-targets.js'
import * as logSearch from './migrations/0007-log-search.js'
import * as deliveryDigest from './migrations/0010-delivery-digest.js'
import * as chatUserPrivacy from './migrations/0011-chat-user-privacy.js'

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
  '0011-chat-user-privacy': chatUserPrivacy,
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
