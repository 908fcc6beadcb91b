/**
 * Row versions for the Redis copies: every change to a code or an API key increments `version` in the same UPDATE
 * (under the row lock), and the copies are written compare-and-set on it. `changed_at` is the database's own clock of
 * the last change (ON UPDATE), indexed, so the reconciler finds recent changes cheaply whoever made them.
 */
import { sql, type Kysely } from 'kysely'

/** Adds `version` and `changed_at` (indexed) to codes and api_keys. */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['codes', 'api_keys']) {
    await sql`
      ALTER TABLE ${sql.table(table)}
        ADD COLUMN version BIGINT UNSIGNED NOT NULL DEFAULT 1,
        ADD COLUMN changed_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
        ADD KEY ${sql.raw(`${table}_changed`)} (changed_at)
    `.execute(db)
  }
}

/** Drops the version columns (the copies then compare nothing: every write wins again). */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['codes', 'api_keys']) {
    await sql`ALTER TABLE ${sql.table(table)} DROP KEY ${sql.raw(`${table}_changed`)}, DROP COLUMN changed_at, DROP COLUMN version`.execute(db)
  }
}
