/**
 * What a chat user lets games see (issue 31, `/share show:`): a share setting on the code row. It changes with the
 * row's version like every other field, so the Redis copy (`{p}:share`) is written compare-and-set with the record.
 */
import { sql, type Kysely } from 'kysely'

/** Adds codes.share (every existing code keeps today's behaviour, `everything`). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE codes
      ADD COLUMN share ENUM('everything', 'games', 'media', 'nothing') NOT NULL DEFAULT 'everything'
  `.execute(db)
}

/** Drops it again. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE codes DROP COLUMN share`.execute(db)
}
