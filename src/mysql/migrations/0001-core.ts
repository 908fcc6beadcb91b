/** Codes, API keys, log entries and infractions. */
import { sql, type Kysely } from 'kysely'

/** Creates the core tables. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE codes (
      code CHAR(4) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
      chat_user_id VARCHAR(20) CHARACTER SET ascii NOT NULL,
      state ENUM('active', 'banned', 'invalidated', 'revoked') NOT NULL DEFAULT 'active',
      paused BOOLEAN NOT NULL DEFAULT FALSE,
      platform_user_id BIGINT UNSIGNED NULL,
      platform_username VARCHAR(32) NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      bound_at DATETIME(3) NULL,
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      live_chat_user_id VARCHAR(20) CHARACTER SET ascii AS (CASE WHEN state <> 'revoked' THEN chat_user_id END) STORED,
      UNIQUE KEY codes_live_user (live_chat_user_id),
      KEY codes_chat_user (chat_user_id),
      KEY codes_platform_user (platform_user_id)
    ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci
  `.execute(db)
  await sql`
    CREATE TABLE api_keys (
      id CHAR(12) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
      name VARCHAR(64) NOT NULL,
      secret_hash CHAR(64) CHARACTER SET ascii NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      revoked_at DATETIME(3) NULL,
      active_name VARCHAR(64) AS (CASE WHEN revoked_at IS NULL THEN name END) STORED,
      UNIQUE KEY api_keys_active_name (active_name)
    ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci
  `.execute(db)
  await sql`
    CREATE TABLE log_entries (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      dedupe_key VARCHAR(100) CHARACTER SET ascii NOT NULL,
      category ENUM('server', 'ingame', 'moderation') NOT NULL,
      event_type VARCHAR(64) NOT NULL,
      description TEXT NOT NULL,
      platform_username VARCHAR(32) NULL,
      platform_user_id BIGINT UNSIGNED NULL,
      issued_by VARCHAR(100) NULL,
      code CHAR(4) CHARACTER SET ascii COLLATE ascii_bin NULL,
      source VARCHAR(100) NOT NULL,
      source_ip VARCHAR(45) NULL,
      data LONGTEXT NULL,
      received_at DATETIME(3) NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      UNIQUE KEY log_entries_dedupe (dedupe_key),
      KEY log_entries_category (category, id),
      KEY log_entries_code (code, id)
    ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci
  `.execute(db)
  await sql`
    CREATE TABLE infractions (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      log_entry_id BIGINT UNSIGNED NOT NULL,
      code CHAR(4) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
      chat_user_id VARCHAR(20) CHARACTER SET ascii NOT NULL,
      platform_user_id BIGINT UNSIGNED NULL,
      platform_username VARCHAR(32) NULL,
      event_type VARCHAR(64) NOT NULL,
      description TEXT NOT NULL,
      issued_by VARCHAR(100) NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      UNIQUE KEY infractions_log_entry (log_entry_id),
      KEY infractions_chat_user (chat_user_id, id),
      KEY infractions_code (code, id),
      KEY infractions_platform_user (platform_user_id, id),
      CONSTRAINT infractions_log_entry_fk FOREIGN KEY (log_entry_id) REFERENCES log_entries (id)
    ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci
  `.execute(db)
}

/** Drops the core tables. */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['infractions', 'log_entries', 'api_keys', 'codes']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db)
  }
}
