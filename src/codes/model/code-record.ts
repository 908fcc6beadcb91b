/**
 * The code record as cached in Redis (`{p}:codes` field value), pure: `state|paused|chatUserId|platformUsername|version`,
 * `version` being the MySQL row version the copy was made from (records written before versions had four fields: they
 * decode with version 0, older than any versioned write). Usernames are validated to letters, digits and `_` before
 * they are stored, so `|` cannot occur in them. A revoked code stays in the hash as a tombstone (state `revoked`, shown
 * as unknown) so that a late write of an older version cannot bring it back.
 */
import type { CodeRecord, CodeState } from './codes.js'
import type { CodeView } from '../../presence/model/blocks.js'
import type { ShareSetting } from '../../presence/model/share.js'

/**
 * A code record with the MySQL row version it was read at, and its share setting (absent: a record built without it,
 * whose copy leaves the stored setting as it is).
 */
export type VersionedCode = CodeRecord & { version: number; share?: ShareSetting }

/** The cached fields of a code. */
export type CachedCode = Pick<CodeRecord, 'state' | 'paused' | 'chatUserId' | 'platformUsername'> & { version: number }

/** Encodes a record for the cache. */
export function encodeCachedCode(record: CachedCode): string {
  return `${record.state}|${record.paused ? 1 : 0}|${record.chatUserId}|${record.platformUsername ?? ''}|${record.version}`
}

const STATES = new Set<CodeState>(['active', 'banned', 'invalidated', 'revoked'])

/** Decodes a cached value; undefined for anything malformed. */
export function decodeCachedCode(value: string): CachedCode | undefined {
  const [state, paused, chatUserId, username, version, extra] = value.split('|')
  if (extra !== undefined || chatUserId === undefined || username === undefined) return undefined
  if (!STATES.has(state as CodeState) || (paused !== '0' && paused !== '1')) return undefined
  if (version !== undefined && !/^[0-9]{1,15}$/.test(version)) return undefined
  return {
    state: state as CodeState,
    paused: paused === '1',
    chatUserId,
    platformUsername: username === '' ? null : username,
    version: version === undefined ? 0 : Number(version),
  }
}

/**
 * What a block shows for a code, from its cached record (or none) and the live presence text
 * (already rendered activity groups, '' for none). Precedence: unknown, banned, invalidated, paused, unlinked, active.
 */
export function viewOf(cached: Omit<CachedCode, 'version'> | undefined, activity: string): CodeView {
  if (cached === undefined || cached.state === 'revoked') return { kind: 'not_found' }
  if (cached.state === 'banned') return { kind: 'banned', username: cached.platformUsername }
  if (cached.state === 'invalidated') return { kind: 'invalidated', username: cached.platformUsername }
  if (cached.paused) return { kind: 'paused' }
  if (cached.platformUsername === null) return { kind: 'not_linked' }
  return { kind: 'active', username: cached.platformUsername, activity }
}
