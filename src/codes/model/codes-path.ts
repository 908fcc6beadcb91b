/** Reading the codes of a callbacks or rpc path, pure: decoding, separators, de-duplication and the per-request maximum. */
import { CODE_FORMAT, isCode } from './codes.js'

/** What a callbacks or rpc request without a usable code is told. */
export const NO_USABLE_CODE_MESSAGE = 'no usable code in the path: codes are 4 characters A-Z or 0-9, separated by &'

/** The codes asked for in a callbacks or rpc path, or why the path cannot be answered. */
export type CodesPathResult =
  | { ok: true; codes: string[]; skipped: number }
  | { ok: false; reason: 'no_usable_code' | 'too_many_codes'; message: string }

// 64 KiB holds over 4,000 codes even fully percent-encoded (15 characters each with the separator), far beyond any
// per-request maximum, so larger input is refused without scanning it.
const MAX_RAW_LENGTH = 64 * 1024
// Clients that encode the whole segment send the separator as %26; both spellings separate codes.
const SEPARATOR = /&|%26/i

function decodeToken(token: string): string | null {
  try {
    return decodeURIComponent(token)
  } catch {
    return null
  }
}

function tooMany(maxCodes: number): CodesPathResult {
  return { ok: false, reason: 'too_many_codes', message: `too many codes: at most ${maxCodes} per request` }
}

// What well-behaved game servers send: only codes and plain `&`. Such a path needs no decoding or checks per token.
const PLAIN_PATH = new RegExp(`^${CODE_FORMAT}(?:&${CODE_FORMAT})*$`)

/** Reads the undecoded path segment after `/callbacks/` or `/rpc/` into distinct codes in first-seen order. */
export function parseCodesPath(raw: string, maxCodes: number): CodesPathResult {
  if (raw.length > MAX_RAW_LENGTH) return tooMany(maxCodes)
  if (PLAIN_PATH.test(raw)) {
    const codes = [...new Set(raw.split('&'))]
    return codes.length > maxCodes ? tooMany(maxCodes) : { ok: true, codes, skipped: 0 }
  }
  const seen = new Set<string>()
  let skipped = 0
  for (const token of raw.split(SEPARATOR)) {
    if (token === '') continue
    const decoded = decodeToken(token)
    if (decoded === null || !isCode(decoded)) {
      skipped++
      continue
    }
    seen.add(decoded)
    if (seen.size > maxCodes) return tooMany(maxCodes)
  }
  if (seen.size === 0) {
    return { ok: false, reason: 'no_usable_code', message: NO_USABLE_CODE_MESSAGE }
  }
  return { ok: true, codes: [...seen], skipped }
}
