/**
 * The code domain, pure: formats, issuance from caller-supplied randomness, and every state transition
 * (the spec's bind table plus the staff and user transitions it leaves open). Transitions return results;
 * they never throw for expected outcomes.
 */
import * as v from 'valibot'

/** Characters a code may be made of: every code ever issued, and everything the API accepts, is 4 of these. */
export const CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

/**
 * The letters new codes never contain, each with the digit it is read as in game fonts (Gotham, Builder Sans, Source
 * Sans, Arial): O is 0, I and L are 1 (a lowercase l typed for 1 uppercases to L). Codes issued before this rule may
 * still contain them and keep working; a game client maps them to their twin when normalizing what a player typed.
 */
export const LOOK_ALIKES: Readonly<Record<string, string>> = Object.freeze({ O: '0', I: '1', L: '1' })

/** Characters new codes are drawn from: CODE_ALPHABET without the look-alikes (33 characters, 33^4 = 1,185,921 codes). */
export const ISSUE_ALPHABET = [...CODE_ALPHABET].filter((c) => !(c in LOOK_ALIKES)).join('')

/** The code format as regex source (no anchors), for patterns that embed a code: exactly 4 characters A-Z or 0-9. */
export const CODE_FORMAT = '[A-Z0-9]{4}'

/** A whole value that is a code (uppercase only). */
export const CODE_PATTERN = new RegExp(`^${CODE_FORMAT}$`)

/** How the code format is described to people, in API errors and chat replies. */
export const CODE_FORMAT_TEXT = '4 characters, each A-Z or 0-9'

/** A code: exactly 4 characters A-Z or 0-9. The one code schema every request and job schema uses. */
export const CodeSchema = v.pipe(v.string('must be a string'), v.regex(CODE_PATTERN, `must be ${CODE_FORMAT_TEXT}`))

/** Lifecycle state of a stored code; "bound" is not a state but `platformUserId !== null`. */
export type CodeState = 'active' | 'banned' | 'invalidated' | 'revoked'

/** A stored code as the domain sees it. */
export interface CodeRecord {
  code: string
  state: CodeState
  paused: boolean
  chatUserId: string
  platformUserId: string | null
  platformUsername: string | null
}

/** What a bind attempt carries once the platform id is known. */
export interface BindAttempt {
  platformUserId: string
  platformUsername: string
}

/** A bind outcome as the spec names it. */
export type BindStatus = 'bound' | 'already_bound' | 'not_found' | 'banned' | 'invalidated'

/** The decision for one bind attempt: the outcome and the record to store (when it changes). */
export type BindDecision<R extends CodeRecord = CodeRecord> =
  | { status: 'bound' | 'already_bound'; next: R; changed: boolean }
  | { status: 'invalidated'; next: R; changed: boolean; conflict: { boundTo: BindAttempt; attempted: BindAttempt } | null }
  | { status: 'not_found' | 'banned'; next: null; changed: false }

/** True when `value` is a well-formed code: exactly four characters A-Z or 0-9. */
export function isCode(value: unknown): value is string {
  return typeof value === 'string' && CODE_PATTERN.test(value)
}

// The largest multiple of the alphabet's size that fits in a byte: 231 = 7 * 33.
const BYTE_LIMIT = 256 - (256 % ISSUE_ALPHABET.length)

/**
 * Makes a new code from random bytes by rejection sampling (no modulo bias) over ISSUE_ALPHABET: a byte is used
 * only when it is below 231 = 7 * 33. Returns null when the bytes ran out; callers pass 16 bytes, which fails with
 * probability below 4e-11 (and the service tries again).
 */
export function codeFromBytes(bytes: Uint8Array): string | null {
  let code = ''
  for (const byte of bytes) {
    if (byte >= BYTE_LIMIT) continue
    code += ISSUE_ALPHABET[byte % ISSUE_ALPHABET.length]
    if (code.length === 4) return code
  }
  return null
}

/**
 * The codes a game client tries for what a player typed, best first: ASCII spaces, tabs and dashes removed, ASCII
 * letters uppercased, and the look-alikes mapped to their twins (`oo1r` and `OOIR` give `001R`); then, when that
 * differs, the uppercased text as typed, for codes issued before the look-alike rule (`OOIR` itself). Empty when
 * neither is a code. The reference for the Roblox module's normalizer (a shared table of cases checks both); the
 * service itself stays strict and never normalizes.
 */
export function typedCodeCandidates(typed: string): string[] {
  const plain = typed.replace(/[ \t\n\v\f\r-]+/g, '').replace(/[a-z]+/g, (s) => s.toUpperCase())
  const mapped = [...plain].map((c) => LOOK_ALIKES[c] ?? c).join('')
  return [mapped, plain].filter((code, i, all) => isCode(code) && all.indexOf(code) === i)
}

/** True when the record is linked to a game account. */
export function isBound(record: CodeRecord): boolean {
  return record.platformUserId !== null
}

/** True when the code is usable at all (revoked codes behave as unknown everywhere). */
export function isLive<R extends CodeRecord>(record: R | undefined): record is R {
  return record !== undefined && record.state !== 'revoked'
}

/**
 * The spec's bind table. Decided where it is silent: a different account binding a bound code burns the
 * code (state invalidated, with the conflict reported so a moderation entry can be written); the same
 * account under a new username stays bound and the username is updated.
 */
export function decideBind<R extends CodeRecord>(record: R | undefined, attempt: BindAttempt): BindDecision<R> {
  if (!isLive(record)) return { status: 'not_found', next: null, changed: false }
  if (record.state === 'banned') return { status: 'banned', next: null, changed: false }
  if (record.state === 'invalidated') return { status: 'invalidated', next: record, changed: false, conflict: null }
  if (record.platformUserId === null) {
    return { status: 'bound', next: { ...record, ...attempt }, changed: true }
  }
  if (record.platformUserId === attempt.platformUserId) {
    const changed = record.platformUsername !== attempt.platformUsername
    return { status: 'already_bound', next: { ...record, platformUsername: attempt.platformUsername }, changed }
  }
  const boundTo = { platformUserId: record.platformUserId, platformUsername: record.platformUsername ?? '' }
  return { status: 'invalidated', next: { ...record, state: 'invalidated' }, changed: true, conflict: { boundTo, attempted: attempt } }
}

/** Staff and user actions on one code. */
export type CodeAction = 'ban' | 'unban' | 'pause' | 'resume' | 'reset' | 'revoke' | 'unlink' | 'invalidate'

/** Why an action was refused. */
export type ActionRefusal = 'not_found' | 'already_banned' | 'not_banned' | 'already_paused' | 'not_paused' | 'banned' | 'invalidated'

/** Result of applying an action. */
export type ActionResult<R extends CodeRecord = CodeRecord> = { ok: true; next: R; changed: boolean } | { ok: false; reason: ActionRefusal }

/**
 * Applies an action. ban/unban toggle the banned state and keep the link; pause/resume toggle detection;
 * reset returns the code to active and unbound so its user can bind again (it also clears an invalidation);
 * revoke retires the code for good (it then behaves as unknown); unlink is the user's own revoke, refused while the
 * code is banned (otherwise /unlink then /code would trade a banned code for a fresh one); invalidate burns it (the
 * "This wasn't me" button).
 */
export function applyAction<R extends CodeRecord>(record: R | undefined, action: CodeAction): ActionResult<R> {
  if (!isLive(record)) return { ok: false, reason: 'not_found' }
  const next = (patch: Partial<CodeRecord>): ActionResult<R> => ({ ok: true, next: { ...record, ...patch }, changed: true })
  switch (action) {
    case 'ban':
      return record.state === 'banned' ? { ok: false, reason: 'already_banned' } : next({ state: 'banned' })
    case 'unban':
      return record.state !== 'banned' ? { ok: false, reason: 'not_banned' } : next({ state: 'active' })
    case 'pause':
      return record.paused ? { ok: false, reason: 'already_paused' } : next({ paused: true })
    case 'resume':
      return !record.paused ? { ok: false, reason: 'not_paused' } : next({ paused: false })
    case 'reset':
      if (record.state === 'banned') return { ok: false, reason: 'banned' }
      return next({ state: 'active', platformUserId: null, platformUsername: null })
    case 'revoke':
      return next({ state: 'revoked' })
    case 'unlink':
      return record.state === 'banned' ? { ok: false, reason: 'banned' } : next({ state: 'revoked' })
    case 'invalidate':
      if (record.state === 'banned') return { ok: false, reason: 'banned' }
      return record.state === 'invalidated' ? { ok: false, reason: 'invalidated' } : next({ state: 'invalidated' })
  }
}

/** Human-readable text for a refusal, shared by the CLI and the chat commands. */
export function describeRefusal(reason: ActionRefusal): string {
  switch (reason) {
    case 'not_found':
      return 'no such code'
    case 'already_banned':
      return 'the code is already banned'
    case 'not_banned':
      return 'the code is not banned'
    case 'already_paused':
      return 'detection is already paused'
    case 'not_paused':
      return 'detection is not paused'
    case 'banned':
      return 'the code is banned; unban it first'
    case 'invalidated':
      return 'the code is already invalidated'
  }
}

/**
 * The support message the bind endpoint gives with `invalidated`. It does not say why: the code may have been burnt
 * by this very bind (another account had it), earlier by another account, or by its owner's "This wasn't me".
 */
export const INVALIDATED_MESSAGE =
  'This code was invalidated and can no longer link any account. Its owner can get a new code in Discord (/unlink, then /code) or contact support; do not retry.'
