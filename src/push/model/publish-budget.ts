/**
 * How many messages the publisher may send to one universe, and how long it waits after a refusal (pure).
 *
 * Roblox documents three limits a publish to a universe's topic must stay inside (creator-docs, MessagingService and
 * the Open Cloud messaging guide):
 *
 * - each topic can be received (40 + 80 × servers) times per minute, and the whole game (400 + 200 × servers): every
 *   live server receives every message, so a topic takes (40 + 80 × servers) / servers messages a minute;
 * - Open Cloud throttles publishes to an experience at 50 + 5 × players per minute;
 * - 5,000 publishes per minute per key owner (every universe of that owner together; PUSH_PUBLISHES_PER_MINUTE).
 *
 * Servers and players are estimated from the live subscriptions: a server counts while it declares at least one code,
 * and players are the distinct codes declared. The estimate is exact for servers that listen on the topic only while
 * they declare codes (the module does); a server listening with no linked player would make the true per-topic
 * quotient smaller, by at most 40/servers a minute (it falls towards 80 as servers grow). Players only ever raise the
 * throttle, so the estimate (a lower bound) keeps inside it.
 */

/** Messages per minute one universe's topic can take with `servers` live servers (both receive limits). */
export function topicBudgetPerMinute(servers: number): number {
  const s = Math.max(1, Math.floor(servers))
  return Math.min(Math.floor((40 + 80 * s) / s), Math.floor((400 + 200 * s) / s))
}

/** Publishes per minute Open Cloud accepts for an experience with `players` players in it. */
export function experienceThrottlePerMinute(players: number): number {
  return 50 + 5 * Math.max(0, Math.floor(players))
}

/**
 * The per-minute budget of one universe: the smaller of its topic's receive budget for the estimated servers and the
 * experience throttle for the estimated players. With no live server nothing is published (0).
 */
export function universeBudgetPerMinute(estimate: { servers: number; players: number }): number {
  if (estimate.servers < 1) return 0
  return Math.min(topicBudgetPerMinute(estimate.servers), experienceThrottlePerMinute(estimate.players))
}

/** Messages one universe may send in one window at most, so a burst cannot spend a minute's budget in a second. */
export const MESSAGES_PER_WINDOW = 2

/** First wait after a 429 without Retry-After, or after a 5xx or a network failure. */
export const FIRST_BACKOFF_MS = 1000

/** Longest wait between attempts. */
export const MAX_BACKOFF_MS = 60_000

/**
 * How long to wait before the next publish to a universe after `failures` refusals in a row (1 for the first): the
 * Retry-After the answer gave (seconds, or an HTTP date relative to `nowMs`), else 1 s doubled per failure, capped at
 * a minute. Roblox's rate-limit guide: honour `retry-after` when present, else back off exponentially.
 */
export function retryDelayMs(failures: number, retryAfter: string | null | undefined, nowMs: number): number {
  const given = parseRetryAfter(retryAfter, nowMs)
  if (given !== null) return Math.min(MAX_BACKOFF_MS, Math.max(0, given))
  const n = Math.max(1, Math.floor(failures))
  return Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.min(n - 1, 16))
}

/** A Retry-After header in ms from `nowMs`: delta seconds (fractions allowed) or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  if (value === null || value === undefined) return null
  const text = value.trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000)
  if (!/[a-z]/i.test(text)) return null
  const at = Date.parse(text)
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs)
}
