/**
 * A presence hash value (`{p}:presence` field = chat user id), pure: `shard|status|activity`, where activity is
 * the rendered activity groups (lines ending in `\n`, as renderActivityGroups makes them; '' for none).
 */

/** A user's live presence as the gateway stores it. */
export interface PresenceEntry {
  shard: number
  status: 'online' | 'idle' | 'dnd'
  activity: string
}

/** Encodes an entry for the presence hash. */
export function encodePresence(entry: PresenceEntry): string {
  return `${entry.shard}|${entry.status}|${entry.activity}`
}

/** Decodes an entry; undefined for anything malformed. */
export function decodePresence(value: string): PresenceEntry | undefined {
  const first = value.indexOf('|')
  const second = value.indexOf('|', first + 1)
  if (first <= 0 || second < 0) return undefined
  const shard = Number(value.slice(0, first))
  const status = value.slice(first + 1, second)
  if (!Number.isInteger(shard) || shard < 0) return undefined
  if (status !== 'online' && status !== 'idle' && status !== 'dnd') return undefined
  return { shard, status, activity: value.slice(second + 1) }
}
