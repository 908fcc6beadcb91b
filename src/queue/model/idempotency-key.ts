/**
 * The `Idempotency-Key` header of POST /api/v1/log/{category}: which values are accepted, and how long a key is
 * remembered with the event it was first used for. Pure.
 */

/** Longest accepted key, in characters (Stripe's limit). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255

/**
 * How long the front remembers which event a key was first used for, so a reuse with a different event is refused
 * (422). The event itself is stored once however late the retry comes: its job id, derived from the key, is a unique
 * key in MySQL for good.
 */
export const IDEMPOTENCY_WINDOW_SECONDS = 3600

// Visible ASCII only: what every HTTP stack passes through unchanged (a UUID, a ULID, a counter, a quoted string).
const VISIBLE_ASCII = /^[\x21-\x7e]+$/

/** What the header says: no key, a key, or why the value is refused. */
export type IdempotencyKeyHeader = { ok: true; key: string | null } | { ok: false; message: string }

/** Reads the header value (undefined when absent). */
export function parseIdempotencyKey(value: string | undefined): IdempotencyKeyHeader {
  if (value === undefined) return { ok: true, key: null }
  if (value.length === 0 || value.length > MAX_IDEMPOTENCY_KEY_LENGTH || !VISIBLE_ASCII.test(value)) {
    return { ok: false, message: `Idempotency-Key must be 1-${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters (no spaces), such as a UUID` }
  }
  return { ok: true, key: value }
}
