/**
 * The safety verdict, pure: from what is known about a player (the code they gave, codes linked to their account,
 * infractions, the staff watchlist) to `safe`, `review` or `unsafe` with every reason (the Threat Detection entry a
 * verdict writes is built in safety/threat-detection.ts, beside the job schema it fills).
 */
import type { CodeState } from '../../codes/model/codes.js'

/** The verdicts, mildest first. */
export const SAFETY_STATUSES = ['safe', 'review', 'unsafe'] as const

/** One verdict. */
export type SafetyStatus = (typeof SAFETY_STATUSES)[number]

/** Why a verdict is not `safe`. */
export type SafetyReasonCode = 'code_banned' | 'code_invalidated' | 'linked_code_banned' | 'code_linked_elsewhere' | 'infractions' | 'watchlist'

/** One reason, with the verdict it leads to on its own. */
export interface SafetyReason {
  reason: SafetyReasonCode
  status: Exclude<SafetyStatus, 'safe'>
  message: string
}

/** A verdict and its reasons (empty for `safe`). */
export interface SafetyVerdict {
  status: SafetyStatus
  reasons: SafetyReason[]
}

/** What the check found; `code` is null when none was given or it names no live code. */
export interface SafetyFacts {
  platformUserId: string
  code: { code: string; state: CodeState; platformUserId: string | null } | null
  /** Banned codes linked to this platform user id (besides the given one). */
  bannedLinkedCodes: readonly string[]
  /** Unpardoned infractions of the given code's chat user or of this platform user id (a pardon takes one out). */
  infractions: number
  watch: { reason: string | null } | null
}

/** Infraction counts from which a player is `review` or `unsafe`; 0 turns a level off. */
export interface SafetyThresholds {
  review: number
  unsafe: number
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** Decides the verdict: the most severe status among the reasons. */
export function decideSafety(facts: SafetyFacts, thresholds: SafetyThresholds): SafetyVerdict {
  const reasons: SafetyReason[] = []
  const code = facts.code
  if (code !== null) {
    if (code.state === 'banned') reasons.push({ reason: 'code_banned', status: 'unsafe', message: `code ${code.code} is banned` })
    else if (code.state === 'invalidated') {
      reasons.push({ reason: 'code_invalidated', status: 'unsafe', message: `code ${code.code} is invalidated (another account tried to bind it, or its owner reported a link they did not make)` })
    }
    if (code.platformUserId !== null && code.platformUserId !== facts.platformUserId) {
      reasons.push({ reason: 'code_linked_elsewhere', status: 'review', message: `code ${code.code} is linked to another account` })
    }
  }
  const linked = facts.bannedLinkedCodes.filter((c) => c !== code?.code)
  if (linked.length > 0) {
    reasons.push({ reason: 'linked_code_banned', status: 'unsafe', message: `the account is linked to banned code ${linked.join(', ')}` })
  }
  const n = facts.infractions
  if (thresholds.unsafe > 0 && n >= thresholds.unsafe) {
    reasons.push({ reason: 'infractions', status: 'unsafe', message: `${plural(n, 'infraction')} on record (unsafe from ${thresholds.unsafe})` })
  } else if (thresholds.review > 0 && n >= thresholds.review) {
    reasons.push({ reason: 'infractions', status: 'review', message: `${plural(n, 'infraction')} on record (review from ${thresholds.review})` })
  }
  if (facts.watch !== null) {
    reasons.push({ reason: 'watchlist', status: 'review', message: `on the staff watchlist${facts.watch.reason === null ? '' : `: ${facts.watch.reason}`}` })
  }
  const status = reasons.some((r) => r.status === 'unsafe') ? 'unsafe' : reasons.length > 0 ? 'review' : 'safe'
  return { status, reasons }
}
