/**
 * The returning-player lookup, pure: what `GET /api/v1/players/{platform_user_id}` says of each code bound to that
 * game account. The status is the code's state as a game sees it: `bound` (live and linked), `paused`, `banned` or
 * `invalidated`. Revoked codes are never listed (they read as unknown everywhere).
 */
import type { CodeRecord } from './codes.js'

/** A code's status in the players answer. */
export type PlayerCodeStatus = 'bound' | 'paused' | 'banned' | 'invalidated'

/** One entry of the players answer. */
export interface PlayerCode {
  code: string
  status: PlayerCodeStatus
  platform_username: string | null
}

/** The status of a stored code bound to the player; null for a revoked one (not listed). */
export function playerCodeStatus(record: Pick<CodeRecord, 'state' | 'paused'>): PlayerCodeStatus | null {
  switch (record.state) {
    case 'revoked':
      return null
    case 'banned':
      return 'banned'
    case 'invalidated':
      return 'invalidated'
    case 'active':
      return record.paused ? 'paused' : 'bound'
  }
}

/** The players answer's entries for the stored codes of one player, in the order given. */
export function playerCodes(records: ReadonlyArray<Pick<CodeRecord, 'code' | 'state' | 'paused' | 'platformUsername'>>): PlayerCode[] {
  const out: PlayerCode[] = []
  for (const r of records) {
    const status = playerCodeStatus(r)
    if (status !== null) out.push({ code: r.code, status, platform_username: r.platformUsername })
  }
  return out
}

/** A platform user id in a path: a positive whole number a JSON number carries exactly, as digits without a leading 0. */
export function readPlatformUserId(raw: string): number | null {
  if (!/^[1-9][0-9]{0,15}$/.test(raw)) return null
  const id = Number(raw)
  return Number.isSafeInteger(id) ? id : null
}
