/**
 * Leaving the sandbox cleanly (issue 32): `log_destinations.sandbox` marks a destination a delivery consumer seeded
 * while serve ran against the local Discord sandbox (SANDBOX=on in its environment). A consumer that does not run
 * against the sandbox refuses to post to such a destination, and `presence-link sandbox reset` removes it.
 *
 * Forward-compatible: the column has a default, so the previous release's workers keep inserting and updating
 * destinations without naming it (what they seed is then a real destination, as it was for them).
 */
import { sql, type Kysely } from 'kysely'

/** Adds the marker column (every existing destination counts as a real one). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE log_destinations ADD COLUMN sandbox BOOLEAN NOT NULL DEFAULT FALSE`.execute(db)
}

/** Drops it again. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE log_destinations DROP COLUMN sandbox`.execute(db)
}
