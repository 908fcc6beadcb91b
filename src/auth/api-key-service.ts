/**
 * API keys: created, listed and revoked in MySQL (the record, mysql/api-key-rows.ts) and kept in step in the front's
 * Redis copy (redis/api-key-copy.ts), which is what a bearer check reads. Every copy write is compare-and-set on the
 * row version, and a command that finds nothing to change in MySQL still re-writes the copy from it (its first attempt
 * may have committed MySQL and then failed to reach Redis).
 */
import { randomBytes } from 'node:crypto'
import type { ApiKeyInfo, ApiKeyRows } from '../mysql/api-key-rows.js'
import type { ApiKeyCopy } from '../redis/api-key-copy.js'
import { bearerToken, digestsEqual, hashSecret, makeApiKey, parseApiKey } from './api-key.js'

/** A key as listed (never its secret). */
export type { ApiKeyInfo }

/** Result of creating a key. */
export type CreateKeyResult = { ok: true; key: string; id: string } | { ok: false; reason: 'name_taken' }

/** The key operations of the CLI and the worker start. */
export interface ApiKeyService {
  /** Creates a key named `name`; the full key is returned once and never stored. */
  create(name: string): Promise<CreateKeyResult>
  /** Every key, newest first. */
  list(): Promise<ApiKeyInfo[]>
  /** Revokes the active key named `name`; false when there is none (the copy of every key of that name is re-written then). */
  revoke(name: string): Promise<boolean>
  /** Writes every key (revoked ones as tombstones) to the Redis copy, compare-and-set, so a lost Redis never locks game servers out; how many keys are active. */
  sync(): Promise<number>
}

/** Creates the service over the key rows and the Redis copy. */
export function createApiKeyService(deps: {
  rows: ApiKeyRows
  copy: ApiKeyCopy
  random?: (size: number) => Uint8Array
  now?: () => Date
}): ApiKeyService {
  const random = deps.random ?? ((n: number) => randomBytes(n))
  const now = deps.now ?? (() => new Date())
  const { rows, copy } = deps
  return {
    async create(name) {
      const made = makeApiKey(random(128))
      if ((await rows.insert({ id: made.id, name, secretHash: made.hash })) === 'name_taken') return { ok: false, reason: 'name_taken' }
      await copy.put({ id: made.id, name, secretHash: made.hash, version: 1, revoked: false })
      return { ok: true, key: made.full, id: made.id }
    },
    list: () => rows.list(),
    async revoke(name) {
      const revoked = await rows.revokeByName(name, now())
      if (revoked === null) {
        await copy.putMany(await rows.findByName(name))
        return false
      }
      await copy.put(revoked)
      return true
    },
    async sync() {
      // Per key, compare-and-set: a key revoked after this read has a newer version in the copy, which this write cannot undo.
      const all = await rows.listAll()
      await copy.putMany(all)
      return all.filter((k) => !k.revoked).length
    },
  }
}

/** Valid tokens a front remembers (one per key in use, so far more than needed); the memory is emptied when full. */
export const REMEMBERED_TOKENS = 1000

/** Outcome of checking a request's Authorization header. */
export type KeyCheck =
  | {
      ok: true
      name: string
      /** The key's id (`bootstrap` for API_KEY): what idempotency keys are scoped to. */
      id: string
    }
  | { ok: false; message: string }

/** Checks bearer headers against the Redis copy (and the optional bootstrap key from the environment). */
export type KeyVerifier = (authorization: string | undefined) => Promise<KeyCheck>

/** Creates the verifier the front uses. */
export function createKeyVerifier(copy: Pick<ApiKeyCopy, 'get'>, bootstrapKey: string): KeyVerifier {
  const bootstrapHash = bootstrapKey === '' ? '' : hashSecret(bootstrapKey)
  const missing: KeyCheck = { ok: false, message: 'missing bearer token: send Authorization: Bearer <API_KEY>' }
  const invalid: KeyCheck = { ok: false, message: 'invalid API key' }
  // Tokens found valid, each with the stored record it matched: a game server sends the same key with every request,
  // and hashing its secret again was a measurable part of a log event's cost. A record read anew (the key cache drops
  // its memory on every key change) is not the one remembered, so the secret is checked against it again. Looked up
  // by the whole token in a hash map: nothing compares a guess with a valid secret character by character.
  let verified = new Map<string, object>()
  return async (authorization) => {
    const token = bearerToken(authorization)
    if (token === null) return authorization === undefined ? missing : invalid
    const parsed = parseApiKey(token)
    if (parsed === null) {
      if (bootstrapHash !== '' && digestsEqual(hashSecret(token), bootstrapHash)) return { ok: true, name: 'bootstrap', id: 'bootstrap' }
      return invalid
    }
    const stored = await copy.get(parsed.id)
    if (stored === null) return invalid
    if (verified.get(token) !== stored) {
      if (!digestsEqual(hashSecret(parsed.secret), stored.secretHash)) return invalid
      if (verified.size >= REMEMBERED_TOKENS) verified = new Map()
      verified.set(token, stored)
    }
    return { ok: true, name: stored.name, id: parsed.id }
  }
}
