/**
 * How one server's push subscription is stored in its universe's hash (`{p}:push:subs:{universe}`, src/redis/keys.ts),
 * pure:
 *
 * - field `KEYID|SERVERID`: the API key's id (12 characters a-z0-9, or `bootstrap`) and the server's JobId
 * - value `EXPIRESMS|CODE,CODE,...`: when it lapses (Redis's clock, epoch ms) and the codes it declared
 */
import { isCode } from '../../codes/model/codes.js'

/** The hash field of one server's subscription. */
export function subscriptionField(keyId: string, serverId: string): string {
  return `${keyId}|${serverId}`
}

/** Encodes a subscription value: its codes (the expiry is added by the script, from Redis's clock). */
export function encodeSubscriptionCodes(codes: readonly string[]): string {
  return codes.join(',')
}

/** One server's live subscription as read back. */
export interface ServerSubscription {
  readonly keyId: string
  readonly serverId: string
  readonly expiresAtMs: number
  readonly codes: readonly string[]
}

/** Decodes a field and its value; null for anything malformed (skipped by readers). */
export function decodeSubscription(field: string, value: string): ServerSubscription | null {
  const bar = field.indexOf('|')
  const at = value.indexOf('|')
  if (bar <= 0 || at <= 0) return null
  const expiresAtMs = Number(value.slice(0, at))
  if (!Number.isSafeInteger(expiresAtMs)) return null
  const list = value.slice(at + 1)
  const codes = list === '' ? [] : list.split(',')
  if (!codes.every(isCode)) return null
  return { keyId: field.slice(0, bar), serverId: field.slice(bar + 1), expiresAtMs, codes }
}

