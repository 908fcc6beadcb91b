/** Delivery state of every log entry, the chat destinations per category, and the staff watchlist. */
import { sql, type Kysely } from 'kysely'

/** Adds the delivery columns to log_entries and creates log_destinations and watchlist. */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Entries stored before delivery existed get 'none' (never sent); only rows inserted afterwards start 'pending'.
  // MariaDB adds the column instantly and keeps 'none' for the old rows after the default changes.
  await sql`
    ALTER TABLE log_entries
      ADD COLUMN delivery_state ENUM('pending', 'sent', 'failed', 'none') NOT NULL DEFAULT 'none',
      ADD COLUMN delivery_message_id VARCHAR(20) CHARACTER SET ascii NULL,
      ADD COLUMN delivery_error VARCHAR(300) NULL,
      ADD COLUMN delivered_at DATETIME(3) NULL,
      ADD KEY log_entries_delivery (category, delivery_state, id)
  `.execute(db)
  await sql`ALTER TABLE log_entries ALTER COLUMN delivery_state SET DEFAULT 'pending'`.execute(db)
  await sql`
    CREATE TABLE log_destinations (
      category ENUM('server', 'ingame', 'moderation') NOT NULL PRIMARY KEY,
      kind ENUM('channel', 'webhook') NOT NULL,
      target VARCHAR(512) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
      set_by VARCHAR(100) NOT NULL,
      disabled_at DATETIME(3) NULL,
      disabled_reason VARCHAR(300) NULL,
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
    ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci
  `.execute(db)
  await sql`
    CREATE TABLE watchlist (
      platform_user_id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
      reason VARCHAR(200) NULL,
      added_by VARCHAR(100) NOT NULL,
      added_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
    ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci
  `.execute(db)
}

/** Drops the tables and columns again. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS watchlist`.execute(db)
  await sql`DROP TABLE IF EXISTS log_destinations`.execute(db)
  await sql`
    ALTER TABLE log_entries
      DROP KEY log_entries_delivery,
      DROP COLUMN delivered_at,
      DROP COLUMN delivery_error,
      DROP COLUMN delivery_message_id,
      DROP COLUMN delivery_state
  `.execute(db)
}
