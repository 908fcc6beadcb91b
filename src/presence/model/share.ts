/**
 * What a chat user lets games see (`/share show:`), pure: which activity groups each setting keeps. The gateway
 * applies it when it writes a presence, so every reader (callbacks, rpc, streams, pushes, the near cache) only ever
 * holds what the setting shows.
 */

/** The share settings, the default first. */
export const SHARE_SETTINGS = ['everything', 'games', 'media', 'nothing'] as const

/** One share setting. */
export type ShareSetting = (typeof SHARE_SETTINGS)[number]

/** The setting of a code that never chose one. */
export const DEFAULT_SHARE: ShareSetting = 'everything'

// Discord activity types: 0 Playing, 1 Streaming, 2 Listening, 3 Watching, 5 Competing (4, custom status, never shows).
const KEPT: Readonly<Record<ShareSetting, ReadonlySet<number>>> = {
  everything: new Set([0, 1, 2, 3, 5]),
  games: new Set([0, 5]),
  media: new Set([1, 2, 3]),
  nothing: new Set(),
}

/** True when `value` names a share setting. */
export function isShareSetting(value: unknown): value is ShareSetting {
  return typeof value === 'string' && (SHARE_SETTINGS as readonly string[]).includes(value)
}

/** Whether a setting lets an activity of Discord type `type` through. */
export function shareShows(share: ShareSetting, type: number): boolean {
  return KEPT[share].has(type)
}

/** What games see under each setting, in words (the /share reply and /mydata). */
export function describeShare(share: ShareSetting): string {
  switch (share) {
    case 'everything':
      return 'all your activities (games, music, videos and streams)'
    case 'games':
      return 'only the games you play or compete in'
    case 'media':
      return 'only what you listen to, watch or stream'
    case 'nothing':
      return 'no activity: your block says "No activity detected"'
  }
}
