/** Every query on `push_targets`: universes attached to our API keys, each with its Open Cloud key sealed. */
import { sql, type Kysely } from 'kysely'
import type { Database } from './schema.js'

/** A target as stored, its key still sealed. */
export interface StoredPushTarget {
  apiKeyId: string
  /** The API key's name, and whether that key is revoked (its targets are then not used). */
  keyName: string
  keyRevoked: boolean
  universeId: number
  sealed: { ciphertext: Buffer; nonce: Buffer; tag: Buffer }
  hint: string
  addedBy: string
  createdAt: Date
  updatedAt: Date
}

/** What `push add` writes. */
export interface NewPushTarget {
  apiKeyId: string
  universeId: number
  sealed: { ciphertext: Buffer; nonce: Buffer; tag: Buffer }
  hint: string
  addedBy: string
}

/** The push target rows. */
export interface PushTargetRows {
  /** Adds a target, or replaces the key of the one of the same API key and universe. */
  put(target: NewPushTarget): Promise<'added' | 'replaced'>
  /** Removes a target; false when there was none. */
  remove(apiKeyId: string, universeId: number): Promise<boolean>
  /** Every target, with its API key's name (revoked keys' targets too), by key name then universe. */
  list(): Promise<StoredPushTarget[]>
  /** One target, or undefined. */
  find(apiKeyId: string, universeId: number): Promise<StoredPushTarget | undefined>
  /** Whether an active (not revoked) API key has a target for that universe. */
  exists(apiKeyId: string, universeId: number): Promise<boolean>
  /** How many targets are stored. */
  count(): Promise<number>
}

const COLUMNS = [
  't.api_key_id',
  't.universe_id',
  't.key_ciphertext',
  't.key_nonce',
  't.key_tag',
  't.key_hint',
  't.added_by',
  't.created_at',
  't.updated_at',
  'k.name',
  'k.revoked_at',
] as const

type Row = {
  api_key_id: string
  universe_id: string
  key_ciphertext: Buffer
  key_nonce: Buffer
  key_tag: Buffer
  key_hint: string
  added_by: string
  created_at: Date
  updated_at: Date
  name: string
  revoked_at: Date | null
}

function toTarget(r: Row): StoredPushTarget {
  return {
    apiKeyId: r.api_key_id,
    keyName: r.name,
    keyRevoked: r.revoked_at !== null,
    universeId: Number(r.universe_id),
    sealed: { ciphertext: r.key_ciphertext, nonce: r.key_nonce, tag: r.key_tag },
    hint: r.key_hint,
    addedBy: r.added_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }
}

/** Creates the rows over a database. */
export function createPushTargetRows(db: Kysely<Database>): PushTargetRows {
  const joined = () => db.selectFrom('push_targets as t').innerJoin('api_keys as k', 'k.id', 't.api_key_id').select(COLUMNS)
  return {
    async put(target) {
      const values = {
        api_key_id: target.apiKeyId,
        universe_id: target.universeId,
        key_ciphertext: target.sealed.ciphertext,
        key_nonce: target.sealed.nonce,
        key_tag: target.sealed.tag,
        key_hint: target.hint,
        added_by: target.addedBy,
      }
      // MariaDB counts 1 affected row for an insert and 2 for an update of a duplicate key.
      const result = await db
        .insertInto('push_targets')
        .values(values)
        .onDuplicateKeyUpdate({
          key_ciphertext: sql`VALUES(key_ciphertext)`,
          key_nonce: sql`VALUES(key_nonce)`,
          key_tag: sql`VALUES(key_tag)`,
          key_hint: sql`VALUES(key_hint)`,
          added_by: sql`VALUES(added_by)`,
          updated_at: sql<Date>`CURRENT_TIMESTAMP(3)`,
        })
        .executeTakeFirst()
      return Number(result.numInsertedOrUpdatedRows ?? 1n) === 1 ? 'added' : 'replaced'
    },
    async remove(apiKeyId, universeId) {
      const result = await db.deleteFrom('push_targets').where('api_key_id', '=', apiKeyId).where('universe_id', '=', String(universeId)).executeTakeFirst()
      return Number(result.numDeletedRows) > 0
    },
    async list() {
      return ((await joined().orderBy('k.name').orderBy('t.universe_id').execute()) as Row[]).map(toTarget)
    },
    async find(apiKeyId, universeId) {
      const row = (await joined().where('t.api_key_id', '=', apiKeyId).where('t.universe_id', '=', String(universeId)).executeTakeFirst()) as Row | undefined
      return row === undefined ? undefined : toTarget(row)
    },
    async exists(apiKeyId, universeId) {
      const row = await db
        .selectFrom('push_targets as t')
        .innerJoin('api_keys as k', 'k.id', 't.api_key_id')
        .select('t.universe_id')
        .where('t.api_key_id', '=', apiKeyId)
        .where('t.universe_id', '=', String(universeId))
        .where('k.revoked_at', 'is', null)
        .executeTakeFirst()
      return row !== undefined
    },
    async count() {
      const row = await db.selectFrom('push_targets').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()
      return Number(row.n)
    },
  }
}
