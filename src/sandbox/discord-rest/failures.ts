/*
 * Failures injected through the control API (`/control/webhooks/:id/fail`, `/control/channels/:id/fail`), answered
 * as Discord would: a 429 with Retry-After that discord.js waits out, or the Discord error that fits the resource.
 */
import type { Reply } from '../http-reply.js'
import type { FailureRule } from '../world-records.js'
import { discordError, type DiscordErrorName } from './discord-errors.js'
import { rateLimitedReply } from './rate-limits.js'

/** Consumes one injected failure for `id`, if any is pending. */
export function takeFailure(rules: Map<string, FailureRule>, id: string): FailureRule | null {
  const rule = rules.get(id)
  if (!rule) return null
  rule.remaining -= 1
  if (rule.remaining <= 0) rules.delete(id)
  return rule
}

/** The Discord answer for an injected failure status; `notFound` and `forbidden` pick the error that fits the resource. */
export function failureReply(rule: FailureRule, notFound: DiscordErrorName, forbidden: DiscordErrorName): Reply {
  switch (rule.status) {
    case 429:
      return rateLimitedReply(rule.retryAfter, null)
    case 404:
      return discordError(notFound)
    case 401:
      return discordError('unauthorized')
    case 403:
      return discordError(forbidden)
    case 500:
      return discordError('internalError')
    default:
      return { status: rule.status, body: { message: `${rule.status}: Injected failure`, code: 0 } }
  }
}
