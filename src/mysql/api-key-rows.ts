/** Every query on `api_keys`: bearer keys for game servers, stored as SHA-256 of their secret part. */
import { sql, type Kysely, type Selectable } from 'kysely'
import { hasErrno, MysqlErrno } from './connection.js'
import type { ApiKeysTable, Database } from './schema.js'

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

/** A key row as its Redis copy is made from it: active or revoked, at its row version. */
export interface VersionedApiKey extends ActiveApiKey {
  version: number
  revoked: boolean
}

/** The key rows. */
export interface ApiKeyRows {
  /** Stores a new key (version 1); `name_taken` when an active key has that name. */
  insert(key: ActiveApiKey): Promise<'inserted' | 'name_taken'>
  /** Every key, newest first. */
  list(): Promise<ApiKeyInfo[]>
  /** Marks the active key named `name` revoked (under its row lock, version incremented); the revoked row, or null when there is none. */
  revokeByName(name: string, at: Date): Promise<VersionedApiKey | null>
  /** Every key ever named `name` (revoked ones too). */
  findByName(name: string): Promise<VersionedApiKey[]>
  /** The given key ids that exist. */
  findByIds(ids: readonly string[]): Promise<VersionedApiKey[]>
  /** Every key (revoked ones too), for the copy. */
  listAll(): Promise<VersionedApiKey[]>
  /** The keys changed at or after `since` (the database's clock), at most `limit`. */
  listChangedSince(since: Date, limit: number): Promise<VersionedApiKey[]>
}

const COLUMNS = ['id', 'name', 'secret_hash', 'revoked_at', 'version'] as const

function toVersioned(r: Pick<Selectable<ApiKeysTable>, (typeof COLUMNS)[number]>): VersionedApiKey {
  return { id: r.id, name: r.name, secretHash: r.secret_hash, version: Number(r.version), revoked: r.revoked_at !== null }
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
    revokeByName: (name, at) =>
      db.transaction().execute(async (tx) => {
        const row = await tx
          .selectFrom('api_keys')
          .select(COLUMNS)
          .where('name', '=', name)
          .where('revoked_at', 'is', null)
          .forUpdate()
          .executeTakeFirst()
        if (row === undefined) return null
        await tx.updateTable('api_keys').set({ revoked_at: at, version: sql<string>`version + 1` }).where('id', '=', row.id).execute()
        return { ...toVersioned(row), version: Number(row.version) + 1, revoked: true }
      }),
    async findByName(name) {
      return (await db.selectFrom('api_keys').select(COLUMNS).where('name', '=', name).execute()).map(toVersioned)
    },
    async findByIds(ids) {
      if (ids.length === 0) return []
      return (await db.selectFrom('api_keys').select(COLUMNS).where('id', 'in', ids).execute()).map(toVersioned)
    },
    async listAll() {
      return (await db.selectFrom('api_keys').select(COLUMNS).orderBy('id').execute()).map(toVersioned)
    },
    async listChangedSince(since, limit) {
      const rows = await db.selectFrom('api_keys').select(COLUMNS).where('changed_at', '>=', since).orderBy('changed_at').limit(limit).execute()
      return rows.map(toVersioned)
    },
  }
}
