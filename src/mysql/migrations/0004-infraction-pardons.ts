/** Pardons on infractions: a pardoned infraction stays in the log but no longer counts for the safety verdict. */
import { sql, type Kysely } from 'kysely'

/** Adds who pardoned an infraction, when and why. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE infractions
      ADD COLUMN pardoned_at DATETIME(3) NULL,
      ADD COLUMN pardoned_by VARCHAR(100) NULL,
      ADD COLUMN pardon_reason VARCHAR(200) NULL
  `.execute(db)
}

/** Drops the pardon columns (pardons are lost; the infractions count again). */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE infractions
      DROP COLUMN pardon_reason,
      DROP COLUMN pardoned_by,
      DROP COLUMN pardoned_at
  `.execute(db)
}
