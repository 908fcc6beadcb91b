/**
 * Digest mode of delivery (issue 30): the delivery state `digested` (an entry summarized in a digest message, whose id
 * is its `delivery_message_id`, rather than posted as an embed of its own) and `pending_since`, when a replayed entry
 * became pending again (NULL: since it was received), from which its wait for a chat channel is counted.
 */
import { sql, type Kysely } from 'kysely'

/** Adds `digested` to delivery_state (at the end: MariaDB extends the ENUM in place) and the pending_since column. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE log_entries
      MODIFY COLUMN delivery_state ENUM('pending', 'sent', 'failed', 'none', 'digested') NOT NULL DEFAULT 'pending',
      ADD COLUMN pending_since DATETIME(3) NULL
  `.execute(db)
}

/** Removes them again; digested entries become `sent` (their digest message was posted). */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE log_entries SET delivery_state = 'sent' WHERE delivery_state = 'digested'`.execute(db)
  await sql`
    ALTER TABLE log_entries
      MODIFY COLUMN delivery_state ENUM('pending', 'sent', 'failed', 'none') NOT NULL DEFAULT 'pending',
      DROP COLUMN pending_since
  `.execute(db)
}
