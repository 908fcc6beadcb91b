/**
 * Push targets (issue 21): a universe attached to one of our API keys, with that universe's Open Cloud key sealed by
 * PUSH_SECRET (AES-256-GCM: ciphertext, nonce and tag; src/push/open-cloud-key.ts) and its last four characters in
 * clear for `push list`. A universe may be attached to several of our keys (a key being rotated, say).
 */
import { sql, type Kysely } from 'kysely'

/** Creates push_targets. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE push_targets (
      api_key_id CHAR(12) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
      universe_id BIGINT UNSIGNED NOT NULL,
      key_ciphertext VARBINARY(8192) NOT NULL,
      key_nonce BINARY(12) NOT NULL,
      key_tag BINARY(16) NOT NULL,
      key_hint VARCHAR(4) CHARACTER SET ascii NOT NULL,
      added_by VARCHAR(100) NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
      PRIMARY KEY (api_key_id, universe_id),
      KEY push_targets_universe (universe_id),
      CONSTRAINT push_targets_api_key_fk FOREIGN KEY (api_key_id) REFERENCES api_keys (id)
    ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci
  `.execute(db)
}

/** Drops push_targets. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS push_targets`.execute(db)
}
