/**
 * Log search (issue 30, `presence-link logs search`): an index per filter, each `(column, received_at)` so a search
 * reads newest first without sorting, and `(received_at)` for a search by time alone (mysql/model/log-search.ts
 * says which search takes which). They replace `(category, id)` and `(code, id)`, which no query needs any more
 * (a lookup by category or code alone is served by the new ones, pending deliveries by `(category, delivery_state,
 * id)`), so the insert path maintains four more indexes, not six.
 *
 * Built online (ALGORITHM=INPLACE, LOCK=NONE): the service keeps storing entries while InnoDB reads the table once
 * and sorts each new index; the ALTER waits at most a few seconds at a time for the table (online-alter.ts). On
 * Galera the ALTER runs as total order isolation and blocks the table's writes cluster-wide for its duration.
 */
import { sql, type Kysely } from 'kysely'
import { alterOnline } from '../online-alter.js'

/** Adds the search indexes and drops the two they supersede, in one online ALTER (all or nothing). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await alterOnline(
    db,
    'log_entries',
    sql`
      ALTER TABLE log_entries
        ADD KEY log_entries_time (received_at),
        ADD KEY log_entries_category_time (category, received_at),
        ADD KEY log_entries_event_time (event_type, received_at),
        ADD KEY log_entries_player_time (platform_user_id, received_at),
        ADD KEY log_entries_username_time (platform_username, received_at),
        ADD KEY log_entries_code_time (code, received_at),
        DROP KEY log_entries_category,
        DROP KEY log_entries_code,
        ALGORITHM = INPLACE, LOCK = NONE
    `,
  )
}

/** Puts the two earlier indexes back and drops the search indexes. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await alterOnline(
    db,
    'log_entries',
    sql`
      ALTER TABLE log_entries
        ADD KEY log_entries_category (category, id),
        ADD KEY log_entries_code (code, id),
        DROP KEY log_entries_time,
        DROP KEY log_entries_category_time,
        DROP KEY log_entries_event_time,
        DROP KEY log_entries_player_time,
        DROP KEY log_entries_username_time,
        DROP KEY log_entries_code_time,
        ALGORITHM = INPLACE, LOCK = NONE
    `,
  )
}
