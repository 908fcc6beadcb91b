/**
 * Push subscriptions, pure: the request body of `POST /api/v1/push/subscriptions`, and what a universe's live
 * subscriptions add up to (how each is stored in Redis: src/redis/model/push-subscription.ts).
 */
import * as v from 'valibot'
import { CODE_FORMAT_TEXT, isCode } from '../../codes/model/codes.js'
import type { ServerSubscription } from '../../redis/model/push-subscription.js'

/** Most codes one server declares in one subscription. */
export const MAX_SUBSCRIPTION_CODES = 200

/** A Roblox universe id: a positive whole number a JSON number carries exactly. */
export const UniverseIdSchema = v.pipe(
  v.number('must be a whole number'),
  v.integer('must be a whole number'),
  v.minValue(1, 'must be a positive whole number'),
  v.maxValue(Number.MAX_SAFE_INTEGER, `must be at most ${Number.MAX_SAFE_INTEGER}`),
)

/** The body of a subscription: the universe, the server's JobId and the codes of the players in that server. */
export const SubscriptionRequestSchema = v.object({
  universe_id: UniverseIdSchema,
  // A Roblox JobId is a GUID; any visible ASCII is taken so a test server's id works too.
  server_id: v.pipe(v.string('must be a string'), v.regex(/^[\x21-\x7e]{1,64}$/, 'must be 1-64 visible ASCII characters (the server\'s JobId)')),
  codes: v.pipe(
    v.array(v.string('must be a list of codes'), 'must be a list of codes'),
    v.maxLength(MAX_SUBSCRIPTION_CODES, `must hold at most ${MAX_SUBSCRIPTION_CODES} codes`),
    v.check((codes) => codes.every((c) => isCode(c)), `must hold only codes (${CODE_FORMAT_TEXT}, uppercase)`),
  ),
})

/** A subscription body as validated. */
export type SubscriptionRequest = v.InferOutput<typeof SubscriptionRequestSchema>

/** The codes of a subscription value, each once, in the order first given. */
export function distinctCodes(codes: readonly string[]): string[] {
  return [...new Set(codes)]
}

/** What a universe's live subscriptions add up to: the servers seen, and each code declared with how many servers hold it. */
export interface UniverseSubscriptions {
  readonly servers: number
  readonly codes: ReadonlySet<string>
}

/** Sums the live subscriptions of one universe. */
export function summarize(subscriptions: readonly ServerSubscription[]): UniverseSubscriptions {
  const codes = new Set<string>()
  let servers = 0
  for (const s of subscriptions) {
    if (s.codes.length === 0) continue
    servers++
    for (const code of s.codes) codes.add(code)
  }
  return { servers, codes }
}
