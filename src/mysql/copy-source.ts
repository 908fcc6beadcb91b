/**
 * The MySQL side of the Redis copies: what the copies are rebuilt from and checked against (every code and API key,
 * those changed since a time of the database's clock, the live code of each user), and that clock itself.
 */
import { sql, type Kysely } from 'kysely'
import type { VersionedCode } from '../codes/model/code-record.js'
import { createApiKeyRows, type VersionedApiKey } from './api-key-rows.js'
import { findCodes, findLiveCodesOfUsers, listAllCodes, listCodesChangedSince } from './code-rows.js'
import type { Database } from './schema.js'

/** What the copies are checked against. */
export interface CopySource {
  /** The database's clock: changes are read since a time of this clock, never of a process's. */
  now(): Promise<Date>
  /** Every code (revoked ones too), `pageSize` at a time. */
  allCodes(pageSize: number): AsyncIterable<VersionedCode[]>
  /** The codes changed at or after `since`, at most `limit`. */
  codesChangedSince(since: Date, limit: number): Promise<VersionedCode[]>
  /** Those of `codes` that exist. */
  findCodes(codes: readonly string[]): Promise<VersionedCode[]>
  /** The live code of each of `users` that has one. */
  liveCodesOfUsers(users: readonly string[]): Promise<Map<string, string>>
  /** Every API key (revoked ones too). */
  allApiKeys(): Promise<VersionedApiKey[]>
  /** The API keys changed at or after `since`, at most `limit`. */
  apiKeysChangedSince(since: Date, limit: number): Promise<VersionedApiKey[]>
  /** Those of the key `ids` that exist. */
  findApiKeys(ids: readonly string[]): Promise<VersionedApiKey[]>
}

/** Creates the source over a database. */
export function createCopySource(db: Kysely<Database>): CopySource {
  const keys = createApiKeyRows(db)
  return {
    async now() {
      const { rows } = await sql<{ now: Date }>`SELECT NOW(3) AS now`.execute(db)
      return rows[0]!.now
    },
    allCodes: (pageSize) => listAllCodes(db, pageSize),
    codesChangedSince: (since, limit) => listCodesChangedSince(db, since, limit),
    findCodes: (codes) => findCodes(db, codes),
    liveCodesOfUsers: (users) => findLiveCodesOfUsers(db, users),
    allApiKeys: () => keys.listAll(),
    apiKeysChangedSince: (since, limit) => keys.listChangedSince(since, limit),
    findApiKeys: (ids) => keys.findByIds(ids),
  }
}
