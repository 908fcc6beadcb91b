/** The staff watchlist's input rules, pure: which platform user ids it takes and how long a reason may be. */

/** A platform user id as the watchlist takes it: a positive whole number of at most 16 digits. */
export const PLATFORM_USER_ID = /^[1-9]\d{0,15}$/

/** Longest stored reason. */
export const MAX_WATCH_REASON = 200
