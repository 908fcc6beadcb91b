/** What one attempt to post a message came to, and what the delivery loop does about it (pure). */

/** The result of one post. */
export type SendOutcome =
  /** Posted; Discord's message id. */
  | { kind: 'sent'; messageId: string }
  /** Rate limited: wait `retryAfterMs` and send the same message again (no attempt spent). */
  | { kind: 'rate_limited'; retryAfterMs: number; requestMade: boolean }
  /** 401, 403 or 404: the destination is gone or forbidden; disable it, keep its entries pending. */
  | { kind: 'disable'; status: number; reason: string }
  /** Any other 4xx: this message can never succeed as it is. */
  | { kind: 'rejected'; status: number; reason: string }
  /** 5xx, timeout or network error: retry the same message after a backoff. */
  | { kind: 'transient'; reason: string }

/** Classifies a Discord error status (429 is handled before this). */
export function outcomeOfStatus(status: number, reason: string): SendOutcome {
  if (status === 401 || status === 403 || status === 404) return { kind: 'disable', status, reason }
  if (status >= 400 && status < 500) return { kind: 'rejected', status, reason }
  return { kind: 'transient', reason }
}

/** Backoff before the `attempt`-th retry of a transient failure: 1 s doubling to at most 60 s. */
export function backoffMs(attempt: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, Math.min(attempt - 1, 6)))
}
