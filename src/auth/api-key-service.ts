/** API keys in MySQL (the record) and Redis (what the front checks), kept in step. */
import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { Kysely } from 'kysely'
import { hasErrno, MysqlErrno } from '../db/database.js'
import type { Database } from '../db/schema.js'
import type { RedisKeys } from '../store/redis-keys.js'
import { bearerToken, digestsEqual, hashSecret, makeApiKey, parseApiKey } from './api-key.js'

/** A key as listed (never its secret). */
export interface ApiKeyInfo {
  id: string
  name: string
  createdAt: Date
  revokedAt: Date | null
}

/** Result of creating a key. */
export type CreateKeyResult = { ok: true; key: string; id: string } | { ok: false; reason: 'name_taken' }

/** Creates a key named `name`; the full key is returned once and never stored. */
export async function createApiKey(db: Kysely<Database>, redis: Redis, keys: RedisKeys, name: string): Promise<CreateKeyResult> {
  const made = makeApiKey(randomBytes(128))
  try {
    await db.insertInto('api_keys').values({ id: made.id, name, secret_hash: made.hash }).execute()
  } catch (err) {
    if (hasErrno(err, MysqlErrno.DuplicateEntry)) return { ok: false, reason: 'name_taken' }
    throw err
  }
  await redis.hset(keys.apiKeys, made.id, `${made.hash}|${name}`)
  return { ok: true, key: made.full, id: made.id }
}

/** Every key, newest first. */
export async function listApiKeys(db: Kysely<Database>): Promise<ApiKeyInfo[]> {
  const rows = await db.selectFrom('api_keys').select(['id', 'name', 'created_at', 'revoked_at']).orderBy('created_at', 'desc').execute()
  return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at, revokedAt: r.revoked_at }))
}

/** Revokes the active key named `name`; false when there is none. */
export async function revokeApiKey(db: Kysely<Database>, redis: Redis, keys: RedisKeys, name: string): Promise<boolean> {
  const row = await db.selectFrom('api_keys').select('id').where('name', '=', name).where('revoked_at', 'is', null).executeTakeFirst()
  if (row === undefined) return false
  await db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', row.id).execute()
  await redis.hdel(keys.apiKeys, row.id)
  return true
}

/** Rewrites the Redis copy from MySQL (at worker start), so a lost Redis never locks game servers out. */
export async function syncApiKeys(db: Kysely<Database>, redis: Redis, keys: RedisKeys): Promise<number> {
  const rows = await db.selectFrom('api_keys').select(['id', 'name', 'secret_hash']).where('revoked_at', 'is', null).execute()
  const tmp = `${keys.apiKeys}:sync:${randomBytes(6).toString('hex')}`
  const tx = redis.multi().del(tmp)
  if (rows.length > 0) tx.hset(tmp, ...rows.flatMap((r) => [r.id, `${r.secret_hash}|${r.name}`])).rename(tmp, keys.apiKeys)
  else tx.del(keys.apiKeys, tmp)
  await tx.exec()
  return rows.length
}

/** Outcome of checking a request's Authorization header. */
export type KeyCheck = { ok: true; name: string } | { ok: false; message: string }

/** Checks bearer headers against Redis (and the optional bootstrap key from the environment). */
export type KeyVerifier = (authorization: string | undefined) => Promise<KeyCheck>

/** Creates the verifier the front uses. */
export function createKeyVerifier(redis: Redis, keys: RedisKeys, bootstrapKey: string): KeyVerifier {
  const bootstrapHash = bootstrapKey === '' ? '' : hashSecret(bootstrapKey)
  const missing: KeyCheck = { ok: false, message: 'missing bearer token: send Authorization: Bearer <API_KEY>' }
  const invalid: KeyCheck = { ok: false, message: 'invalid API key' }
  return async (authorization) => {
    const token = bearerToken(authorization)
    if (token === null) return authorization === undefined ? missing : invalid
    const parsed = parseApiKey(token)
    if (parsed === null) {
      if (bootstrapHash !== '' && digestsEqual(hashSecret(token), bootstrapHash)) return { ok: true, name: 'bootstrap' }
      return invalid
    }
    const stored = await redis.hget(keys.apiKeys, parsed.id)
    if (stored === null) return invalid
    const sep = stored.indexOf('|')
    if (!digestsEqual(hashSecret(parsed.secret), stored.slice(0, sep))) return invalid
    return { ok: true, name: stored.slice(sep + 1) }
  }
}
