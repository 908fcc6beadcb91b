/**
 * Chat users own their data (issue 31): what games see (`share`, set by `/share show:`; it changes with the row's
 * version like every other field, so the Redis copy `{p}:share` is written compare-and-set with the record), and
 * when the user was last seen leaving every guild of the bot (`left_at`, NULL while they are in one): their data is
 * erased FORGET_AFTER_LEAVE_DAYS later unless they come back.
 */
import { sql, type Kysely } from 'kysely'

/** Adds codes.share (every existing code keeps today's behaviour, `everything`) and codes.left_at with its index. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE codes
      ADD COLUMN share ENUM('everything', 'games', 'media', 'nothing') NOT NULL DEFAULT 'everything',
      ADD COLUMN left_at DATETIME(3) NULL,
      ADD KEY codes_left_at (left_at)
  `.execute(db)
}

/** Drops them again. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE codes DROP KEY codes_left_at, DROP COLUMN left_at, DROP COLUMN share`.execute(db)
}
