/** Turns a raw gateway presence into what the presence hash stores (pure). */
import type { PresenceEntry } from './presence-entry.js'
import { renderActivityGroups, type ActivityInput } from './activity.js'
import { DEFAULT_SHARE, type ShareSetting } from './share.js'

/** A presence as it arrives in PRESENCE_UPDATE, GUILD_CREATE or GUILD_MEMBERS_CHUNK. */
export interface RawPresence {
  user: { id: string }
  status?: string | null
  activities?: readonly ActivityInput[] | null
}

const LIVE_STATUSES = new Set(['online', 'idle', 'dnd'])

/**
 * The entry to store for a presence, or null when the user is offline (or invisible) and must be cleared; only the
 * activities the holder's share setting lets through are rendered.
 */
export function presenceEntryOf(raw: RawPresence, shard: number, gamePlatformName: string, share: ShareSetting = DEFAULT_SHARE): PresenceEntry | null {
  const status = raw.status ?? 'offline'
  if (!LIVE_STATUSES.has(status)) return null
  return {
    shard,
    status: status as PresenceEntry['status'],
    activity: renderActivityGroups(Array.isArray(raw.activities) ? raw.activities : [], gamePlatformName, share),
  }
}
