/** Field rules shared by the request schemas, with the limits documented in docs/api.md. */
import * as v from 'valibot'
import { CodeSchema } from '../../codes/model/codes.js'

/** Field length limits (characters). */
export const FieldLimit = {
  eventType: 64,
  description: 4000,
  issuedBy: 100,
  username: 20,
} as const

// C0 and C1 control characters other than tab and line feed/carriage return (which descriptions may contain).
const CONTROL_EXCEPT_WHITESPACE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/
const ANY_CONTROL = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/

/** A code (its schema lives with the code's rules, in src/codes/model/codes.ts). */
export { CodeSchema }

/** A Roblox username: 3-20 letters, digits or underscores. */
export const PlatformUsernameSchema = v.pipe(
  v.string('must be a string'),
  v.regex(/^[A-Za-z0-9_]{3,20}$/, 'must be a Roblox username: 3-20 letters, digits or _'),
)

/** A positive whole number that fits a JSON number exactly. */
export const PlatformUserIdSchema = v.pipe(
  v.number('must be a number'),
  v.integer('must be a whole number'),
  v.minValue(1, 'must be positive'),
  v.maxValue(Number.MAX_SAFE_INTEGER, 'is too large'),
)

/** A single-line label of 1..max characters. */
export function labelSchema(max: number) {
  return v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(max, `must be at most ${max} characters`),
    v.check((s) => !ANY_CONTROL.test(s), 'must not contain control characters or line breaks'),
  )
}

/** Free text of 1..max characters; tabs and line breaks allowed, other control characters not. */
export function textSchema(max: number) {
  return v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must not be empty'),
    v.check((s) => s.trim().length > 0, 'must not be blank'),
    v.maxLength(max, `must be at most ${max} characters`),
    v.check((s) => !CONTROL_EXCEPT_WHITESPACE.test(s), 'must not contain control characters'),
  )
}

/**
 * The value labelSchema(max) makes of `value` (trimmed), or undefined where it refuses it: the same rules without the
 * schema machinery, for the log route's fast path (log-request.ts), which reads every event of every batch.
 */
export function readLabel(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined
  const text = value.trim()
  return text.length >= 1 && text.length <= max && !ANY_CONTROL.test(text) ? text : undefined
}

/** `value` when textSchema(max) accepts it (it is not changed), else undefined: the same rules without the machinery. */
export function readText(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string' || value.length < 1 || value.length > max) return undefined
  return value.trim().length > 0 && !CONTROL_EXCEPT_WHITESPACE.test(value) ? value : undefined
}

const PLATFORM_USERNAME = /^[A-Za-z0-9_]{3,20}$/

/** True when PlatformUsernameSchema accepts `value`. */
export function isPlatformUsername(value: unknown): value is string {
  return typeof value === 'string' && PLATFORM_USERNAME.test(value)
}

/** True when PlatformUserIdSchema accepts `value`. */
export function isPlatformUserId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= Number.MAX_SAFE_INTEGER
}

/** An optional field: absent or null both mean "not given". */
export function optionalField<T extends v.GenericSchema>(schema: T) {
  return v.optional(v.nullable(schema))
}

/** One validation problem as the API reports it. */
export interface FieldIssue {
  field: string
  message: string
}

/** Flattens valibot issues into `{field, message}` pairs, one per field. */
export function toFieldIssues(issues: readonly v.BaseIssue<unknown>[]): FieldIssue[] {
  const seen = new Set<string>()
  const out: FieldIssue[] = []
  for (const issue of issues) {
    const field = v.getDotPath(issue) ?? 'body'
    if (seen.has(field)) continue
    seen.add(field)
    const message = issue.received === 'undefined' && issue.kind === 'schema' ? 'is required' : issue.message
    out.push({ field, message })
  }
  return out
}
