/**
 * Removal of a scratch world: its database `pl_<name>` and every Redis key under the prefix `<name>:` (used by the
 * tools' scratch world and, through test/helpers/scratch.ts, by the tests).
 */
import type { Redis } from 'ioredis'
import { sql, type Kysely } from 'kysely'

/** Drops the database `pl_<name>` and unlinks every Redis key that starts with `<name>:`. */
export async function dropScratch(db: Kysely<any>, redis: Redis, name: string): Promise<void> {
  await sql`DROP DATABASE IF EXISTS ${sql.id(`pl_${name}`)}`.execute(db)
  let cursor = '0'
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${name}:*`, 'COUNT', 1000)
    cursor = next
    if (keys.length > 0) await redis.unlink(...keys)
  } while (cursor !== '0')
}
