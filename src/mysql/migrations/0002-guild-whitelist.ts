/** Guilds whose events the gateway logs (besides GUILD_WHITELIST). */
import { sql, type Kysely } from 'kysely'

/** Creates guild_whitelist. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE guild_whitelist (
      guild_id VARCHAR(20) CHARACTER SET ascii NOT NULL PRIMARY KEY,
      added_by VARCHAR(100) NOT NULL,
      added_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
    ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci
  `.execute(db)
}

/** Drops guild_whitelist. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS guild_whitelist`.execute(db)
}
