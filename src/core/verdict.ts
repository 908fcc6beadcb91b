/**
 * The safety verdict, pure: from what is known about a player (the code they gave, codes linked to their account,
 * infractions, the staff watchlist) to `safe`, `review` or `unsafe` with every reason, and the Threat Detection
 * log entry that a `review` or `unsafe` verdict writes.
 */
import type { CodeState } from '../domain/codes.js'
import type { LogJob } from '../schemas/jobs.js'

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
  /** Infractions of the given code's chat user or of this platform user id. */
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
      reasons.push({ reason: 'code_invalidated', status: 'unsafe', message: `code ${code.code} was invalidated after another account tried to bind it` })
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

/** The player a Threat Detection entry is about. */
export interface ThreatSubject {
  platformUserId: string
  platformUsername: string | null
  code: string | null
}

/**
 * The Threat Detection log job of a `review` or `unsafe` verdict, and its job id: one entry per player, verdict and
 * minute, so a game server checking a player on every join does not flood the log. In the moderation log the code is
 * named only in the text: a moderation entry carrying a code becomes an infraction, which would feed the next check.
 */
export function threatDetectionJob(
  subject: ThreatSubject,
  verdict: SafetyVerdict,
  where: { category: 'ingame' | 'moderation'; source: string; sourceIp: string | null; nowMs: number },
): { job: LogJob; jobId: string } {
  const who = subject.platformUsername === null ? `player ${subject.platformUserId}` : `${subject.platformUsername} (${subject.platformUserId})`
  const lines = verdict.reasons.map((r) => `- ${r.message}`)
  const description = [`Safety check: ${verdict.status.toUpperCase()} for ${who}${subject.code === null ? '' : ` using code ${subject.code}`}`, ...lines].join('\n')
  return {
    jobId: `threat-${subject.platformUserId}-${verdict.status}-${Math.floor(where.nowMs / 60_000)}`,
    job: {
      category: where.category,
      eventType: 'threat_detection',
      description: description.slice(0, 4000),
      platformUsername: subject.platformUsername,
      platformUserId: subject.platformUserId,
      issuedBy: 'Threat Detection',
      code: where.category === 'ingame' ? subject.code : null,
      source: where.source,
      sourceIp: where.sourceIp,
      data: { status: verdict.status, reasons: verdict.reasons.map((r) => r.reason), code: subject.code },
      receivedAt: where.nowMs,
    },
  }
}
