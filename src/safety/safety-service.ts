/** Reads what the safety check and the info endpoint show from MySQL (codes, infractions, watchlist, destinations). */
import type { Kysely } from 'kysely'
import { findCode } from '../db/code-repository.js'
import type { Database } from '../db/schema.js'
import type { CodeState } from '../domain/codes.js'
import { getDestination } from '../delivery/destination-repository.js'
import { countInfractions, countInfractionsOfPerson, listInfractions, type InfractionPage } from './infraction-repository.js'
import { decideSafety, type SafetyFacts, type SafetyThresholds, type SafetyVerdict } from './verdict.js'
import { findOnWatchlist } from './watchlist.js'

/** Who a safety check is about. */
export interface SafetyCheckInput {
  platformUserId: string
  platformUsername: string | null
  code: string | null
}

/** Gathers the facts of a check; a revoked or unknown code counts as no code. */
export async function gatherSafetyFacts(db: Kysely<Database>, input: SafetyCheckInput): Promise<SafetyFacts> {
  const record = input.code === null ? undefined : await findCode(db, input.code)
  const live = record !== undefined && record.state !== 'revoked' ? record : undefined
  const [banned, infractions, watch] = await Promise.all([
    db.selectFrom('codes').select('code').where('platform_user_id', '=', input.platformUserId).where('state', '=', 'banned').orderBy('code').execute(),
    countInfractionsOfPerson(db, { chatUserId: live?.chatUserId ?? null, platformUserId: input.platformUserId }),
    findOnWatchlist(db, input.platformUserId),
  ])
  return {
    platformUserId: input.platformUserId,
    code: live === undefined ? null : { code: live.code, state: live.state, platformUserId: live.platformUserId },
    bannedLinkedCodes: banned.map((r) => r.code),
    infractions,
    watch: watch === undefined ? null : { reason: watch.reason },
  }
}

/** Runs a safety check: the facts, then the verdict. Exported for the staff chat command. */
export async function checkSafety(db: Kysely<Database>, input: SafetyCheckInput, thresholds: SafetyThresholds): Promise<SafetyVerdict> {
  return decideSafety(await gatherSafetyFacts(db, input), thresholds)
}

/** Where Threat Detection writes: the in-game log, or the moderation log when the in-game log has no destination. */
export async function threatDetectionCategory(db: Kysely<Database>, ingameFromEnv: string): Promise<'ingame' | 'moderation'> {
  if (ingameFromEnv !== '') return 'ingame'
  return (await getDestination(db, 'ingame')) === undefined ? 'moderation' : 'ingame'
}

/** A code as the info endpoint shows it, with a page of its user's infractions. */
export interface CodeInfo {
  code: string
  state: Exclude<CodeState, 'revoked'>
  platformUsername: string | null
  platformUserId: string | null
  paused: boolean
  linkedAt: Date | null
  infractionCount: number
  page: InfractionPage
}

/**
 * A live code and the infractions of its chat user, newest first (across the user's codes, so rotating a code hides
 * nothing); null for an unknown or revoked code.
 */
export async function readCodeInfo(db: Kysely<Database>, code: string, page: { limit: number; before?: string }): Promise<CodeInfo | null> {
  const record = await findCode(db, code)
  if (record === undefined || record.state === 'revoked') return null
  const [count, infractions] = await Promise.all([
    countInfractions(db, { chatUserId: record.chatUserId }),
    listInfractions(db, { chatUserId: record.chatUserId, ...page }),
  ])
  return {
    code: record.code,
    state: record.state,
    platformUsername: record.platformUsername,
    platformUserId: record.platformUserId,
    paused: record.paused,
    linkedAt: record.platformUserId === null ? null : record.boundAt,
    infractionCount: count,
    page: infractions,
  }
}

