/** What the safety check and the info endpoint show, read through the rows of codes, infractions, the watchlist and destinations. */
import type { CodeState } from '../codes/model/codes.js'
import type { Config } from '../config.js'
import { decideSafety, type SafetyFacts, type SafetyThresholds, type SafetyVerdict } from './model/verdict.js'
import type { CodeRows } from '../mysql/code-rows.js'
import type { DestinationRows } from '../mysql/destination-rows.js'
import type { InfractionPage, InfractionRows } from '../mysql/infraction-rows.js'
import type { WatchlistRows } from '../mysql/watchlist-rows.js'

/** Who a safety check is about. */
export interface SafetyCheckInput {
  platformUserId: string
  platformUsername: string | null
  code: string | null
}

/** A code as the info endpoint shows it, with a page of its user's infractions. */
export interface CodeInfo {
  code: string
  state: Exclude<CodeState, 'revoked'>
  platformUsername: string | null
  platformUserId: string | null
  paused: boolean
  linkedAt: Date | null
  /** Every infraction in the log, pardoned ones included. */
  infractionCount: number
  /** How many of them staff pardoned (they no longer count for the safety verdict). */
  pardonedCount: number
  page: InfractionPage
}

/** The reads behind the safety check and the info endpoint. */
export interface SafetyService {
  /** Gathers the facts of a check; a revoked or unknown code counts as no code. */
  gatherFacts(input: SafetyCheckInput): Promise<SafetyFacts>
  /** Runs a safety check: the facts, then the verdict at SAFETY_REVIEW_INFRACTIONS and SAFETY_UNSAFE_INFRACTIONS. */
  checkSafety(input: SafetyCheckInput): Promise<SafetyVerdict>
  /**
   * Where Threat Detection writes: the in-game log (set in LOG_DESTINATION_INGAME or stored), or the moderation log
   * when the in-game log has no destination.
   */
  threatCategory(): Promise<'ingame' | 'moderation'>
  /**
   * A live code and the infractions of its chat user, newest first (across the user's codes, so rotating a code
   * hides nothing); null for an unknown or revoked code.
   */
  readInfo(code: string, page: { limit: number; before?: string }): Promise<CodeInfo | null>
}

/** Creates the service over the rows it reads, with the deployment's thresholds and in-game destination. */
export function createSafetyService(
  deps: {
    codes: Pick<CodeRows, 'find' | 'bannedCodesOfPlatformUser'>
    infractions: InfractionRows
    watchlist: Pick<WatchlistRows, 'find'>
    destinations: Pick<DestinationRows, 'get'>
  },
  config: Pick<Config, 'safetyReviewInfractions' | 'safetyUnsafeInfractions' | 'logDestinations'>,
): SafetyService {
  const { codes, infractions, watchlist, destinations } = deps
  const thresholds: SafetyThresholds = { review: config.safetyReviewInfractions, unsafe: config.safetyUnsafeInfractions }
  const service: SafetyService = {
    async gatherFacts(input) {
      const record = input.code === null ? undefined : await codes.find(input.code)
      const live = record !== undefined && record.state !== 'revoked' ? record : undefined
      const [banned, count, watch] = await Promise.all([
        codes.bannedCodesOfPlatformUser(input.platformUserId),
        infractions.countOfPerson({ chatUserId: live?.chatUserId ?? null, platformUserId: input.platformUserId }),
        watchlist.find(input.platformUserId),
      ])
      return {
        platformUserId: input.platformUserId,
        code: live === undefined ? null : { code: live.code, state: live.state, platformUserId: live.platformUserId },
        bannedLinkedCodes: banned,
        infractions: count,
        watch: watch === undefined ? null : { reason: watch.reason },
      }
    },

    async checkSafety(input) {
      return decideSafety(await service.gatherFacts(input), thresholds)
    },

    async threatCategory() {
      if (config.logDestinations.ingame !== '') return 'ingame'
      return (await destinations.get('ingame')) === undefined ? 'moderation' : 'ingame'
    },

    async readInfo(code, page) {
      const record = await codes.find(code)
      if (record === undefined || record.state === 'revoked') return null
      const [count, pardoned, list] = await Promise.all([
        infractions.count({ chatUserId: record.chatUserId }),
        infractions.count({ chatUserId: record.chatUserId, pardoned: true }),
        infractions.list({ chatUserId: record.chatUserId, ...page }),
      ])
      return {
        code: record.code,
        state: record.state,
        platformUsername: record.platformUsername,
        platformUserId: record.platformUserId,
        paused: record.paused,
        linkedAt: record.platformUserId === null ? null : record.boundAt,
        infractionCount: count,
        pardonedCount: pardoned,
        page: list,
      }
    },
  }
  return service
}
