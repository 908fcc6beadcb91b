/** Every query on `api_keys`: bearer keys for game servers, stored as SHA-256 of their secret part. */
import type { Kysely } from 'kysely'
import { hasErrno, MysqlErrno } from './connection.js'
import type { Database } from './schema.js'

/** A key as listed (never its secret). */
export interface ApiKeyInfo {
  id: string
  name: string
  createdAt: Date
  revokedAt: Date | null
}

/** An active key as the front's Redis copy holds it. */
export interface ActiveApiKey {
  id: string
  name: string
  secretHash: string
}

/** The key rows. */
export interface ApiKeyRows {
  /** Stores a new key; `name_taken` when an active key has that name. */
  insert(key: ActiveApiKey): Promise<'inserted' | 'name_taken'>
  /** Every key, newest first. */
  list(): Promise<ApiKeyInfo[]>
  /** Marks the active key named `name` revoked; its id, or null when there is none. */
  revokeByName(name: string, at: Date): Promise<string | null>
  /** Every active key with its hash. */
  listActive(): Promise<ActiveApiKey[]>
}

/** Creates the rows over a database. */
export function createApiKeyRows(db: Kysely<Database>): ApiKeyRows {
  return {
    async insert(key) {
      try {
        await db.insertInto('api_keys').values({ id: key.id, name: key.name, secret_hash: key.secretHash }).execute()
        return 'inserted'
      } catch (err) {
        if (hasErrno(err, MysqlErrno.DuplicateEntry)) return 'name_taken'
        throw err
      }
    },
    async list() {
      const rows = await db.selectFrom('api_keys').select(['id', 'name', 'created_at', 'revoked_at']).orderBy('created_at', 'desc').execute()
      return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at, revokedAt: r.revoked_at }))
    },
    async revokeByName(name, at) {
      const row = await db.selectFrom('api_keys').select('id').where('name', '=', name).where('revoked_at', 'is', null).executeTakeFirst()
      if (row === undefined) return null
      await db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', row.id).execute()
      return row.id
    },
    async listActive() {
      const rows = await db.selectFrom('api_keys').select(['id', 'name', 'secret_hash']).where('revoked_at', 'is', null).execute()
      return rows.map((r) => ({ id: r.id, name: r.name, secretHash: r.secret_hash }))
    },
  }
}
