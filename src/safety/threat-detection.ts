/** The Threat Detection log job of a `review` or `unsafe` safety verdict, pure (it fills the log job schema). */
import type { SafetyVerdict } from './model/verdict.js'
import type { LogJob } from '../queue/model/jobs.js'

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
