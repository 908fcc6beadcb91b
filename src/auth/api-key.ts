/**
 * API keys, pure parts: format `pl_<12 char id>_<32 char secret>`; only SHA-256 of the secret is stored.
 * The id lets the verifier fetch one stored hash, which is then compared in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto'

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** A freshly made key: `full` is shown once, `hash` is stored. */
export interface NewApiKey {
  id: string
  full: string
  hash: string
}

function randomText(bytes: Uint8Array, length: number): string {
  let out = ''
  for (const b of bytes) {
    // 252 = 7 * 36: bytes above it would bias the alphabet.
    if (b >= 252) continue
    out += ALPHABET[b % 36]
    if (out.length === length) return out
  }
  throw new Error('not enough random bytes for a key')
}

/** Makes a key from random bytes (pass 128 bytes from crypto.randomBytes). */
export function makeApiKey(random: Uint8Array): NewApiKey {
  const id = randomText(random.subarray(0, 48), 12)
  const secret = randomText(random.subarray(48), 32)
  return { id, full: `pl_${id}_${secret}`, hash: hashSecret(secret) }
}

/** SHA-256 hex of a secret. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

/** Splits a presented key into id and secret; null when it is not of our format. */
export function parseApiKey(token: string): { id: string; secret: string } | null {
  const m = /^pl_([a-z0-9]{12})_([a-z0-9]{32})$/.exec(token)
  return m === null ? null : { id: m[1]!, secret: m[2]! }
}

/** Constant-time comparison of two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex')
  const y = Buffer.from(b, 'hex')
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y)
}

/**
 * Extracts the token of an `Authorization: Bearer <token>` header; null when absent or malformed. The token is
 * visible ASCII only (RFC 6750 b64token is narrower still): a key followed by any other character is not the key.
 */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null
  const m = /^Bearer[ \t]+([\x21-\x7E]{1,512})[ \t]*$/i.exec(header)
  return m === null ? null : m[1]!
}
