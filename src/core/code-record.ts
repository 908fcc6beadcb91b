/**
 * The code record as cached in Redis (`{p}:codes` field value), pure: `state|paused|chatUserId|platformUsername`.
 * Usernames are validated to letters, digits and `_` before they are stored, so `|` cannot occur in them.
 */
import type { CodeRecord, CodeState } from './codes.js'
import type { CodeView } from './blocks.js'

/** The cached fields of a code. */
export type CachedCode = Pick<CodeRecord, 'state' | 'paused' | 'chatUserId' | 'platformUsername'>

/** Encodes a record for the cache. */
export function encodeCachedCode(record: CachedCode): string {
  return `${record.state}|${record.paused ? 1 : 0}|${record.chatUserId}|${record.platformUsername ?? ''}`
}

const STATES = new Set<CodeState>(['active', 'banned', 'invalidated', 'revoked'])

/** Decodes a cached value; undefined for anything malformed. */
export function decodeCachedCode(value: string): CachedCode | undefined {
  const [state, paused, chatUserId, username, extra] = value.split('|')
  if (extra !== undefined || chatUserId === undefined || username === undefined) return undefined
  if (!STATES.has(state as CodeState) || (paused !== '0' && paused !== '1')) return undefined
  return { state: state as CodeState, paused: paused === '1', chatUserId, platformUsername: username === '' ? null : username }
}

/**
 * What a block shows for a code, from its cached record (or none) and the live presence text
 * (already rendered activity groups, '' for none). Precedence: unknown, banned, invalidated, paused, unlinked, active.
 */
export function viewOf(cached: CachedCode | undefined, activity: string): CodeView {
  if (cached === undefined || cached.state === 'revoked') return { kind: 'not_found' }
  if (cached.state === 'banned') return { kind: 'banned', username: cached.platformUsername }
  if (cached.state === 'invalidated') return { kind: 'invalidated', username: cached.platformUsername }
  if (cached.paused) return { kind: 'paused' }
  if (cached.platformUsername === null) return { kind: 'not_linked' }
  return { kind: 'active', username: cached.platformUsername, activity }
}
