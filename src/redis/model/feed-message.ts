/**
 * The change feed's message format (pure). Every write that changes what a block shows publishes, in the same
 * MULTI or script as the write, one message on `{p}:feed` naming the codes whose blocks may have changed:
 *
 * - `MS|CODE[,CODE...]`  these codes' blocks may have changed (a presence set or cleared, a code written)
 * - `MS|*`               anything may have changed (a cache rebuild, a shard marked dead): drop every cached view
 * - `MS|keys`            an API key was created, revoked or repaired: drop every remembered key (no block changed)
 *
 * MS is the writer's clock (epoch ms) when it sent the write; followers use it only to measure the feed's lag.
 *
 * A message says only "read again"; it never carries the new value, so a lost or reordered message can at worst
 * cost a read, and a follower that was disconnected drops everything it holds.
 */
import { isCode } from '../../codes/model/codes.js'

/** What a feed message asks followers to drop, and when the writer sent it (NaN when the message did not say). */
export type FeedChange =
  | { readonly all: true; readonly sentAt: number }
  | { readonly all: false; readonly codes: readonly string[]; readonly sentAt: number; readonly keys?: true }

/** Encodes the message naming `codes` (callers pass at least one). */
export function encodeFeedCodes(codes: readonly string[], sentAt: number): string {
  return `${sentAt}|${codes.join(',')}`
}

/** Encodes the message that drops every cached view. */
export function encodeFeedAll(sentAt: number): string {
  return `${sentAt}|*`
}

/** Encodes the message that says an API key changed. */
export function encodeFeedKeys(sentAt: number): string {
  return `${sentAt}|keys`
}

/** Decodes a feed message; anything malformed counts as "everything changed", the safe reading. */
export function decodeFeedMessage(message: string): FeedChange {
  const bar = message.indexOf('|')
  const sentAt = bar > 0 && /^[0-9]{1,16}$/.test(message.slice(0, bar)) ? Number(message.slice(0, bar)) : Number.NaN
  const body = message.slice(bar + 1)
  if (body === '*' || body === '') return { all: true, sentAt }
  if (body === 'keys') return { all: false, codes: [], sentAt, keys: true }
  const codes = body.split(',')
  for (const code of codes) if (!isCode(code)) return { all: true, sentAt }
  return { all: false, codes, sentAt }
}
