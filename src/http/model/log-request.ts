/**
 * The log request body (spec: Log request body; categories in queue/model/log-categories.ts), and its batch form
 * `{"events": [...]}` read all or nothing. A single event's code is checked apart (it is a 400, not a 422); in a
 * batch a malformed code is one more issue of its event.
 */
import * as v from 'valibot'
import { CODE_FORMAT_TEXT, isCode } from '../../codes/model/codes.js'
import {
  FieldLimit,
  PlatformUserIdSchema,
  PlatformUsernameSchema,
  isPlatformUserId,
  isPlatformUsername,
  labelSchema,
  optionalField,
  readLabel,
  readText,
  textSchema,
  toFieldIssues,
  type FieldIssue,
} from './fields.js'

/** `{event_type, description, platform_username?, platform_user_id?, issued_by?, code?}`; unknown fields are ignored. */
export const LogRequestSchema = v.object(
  {
    event_type: labelSchema(FieldLimit.eventType),
    description: textSchema(FieldLimit.description),
    platform_username: optionalField(PlatformUsernameSchema),
    platform_user_id: optionalField(PlatformUserIdSchema),
    issued_by: optionalField(labelSchema(FieldLimit.issuedBy)),
    code: v.optional(v.unknown()),
  },
  'must be a JSON object',
)

/** A log request that passed validation (its code still unchecked). */
export type LogRequest = v.InferOutput<typeof LogRequestSchema>

/**
 * What LogRequestSchema makes of `value`, or undefined where it refuses it: the same rules and the same output
 * (labels trimmed, only the known fields, a field present only where it was sent), without the schema machinery,
 * which was a third of the front's work per event in a batch. A refusal is then read again by the schema for its
 * issues. test/http/model/log-request.test.ts holds the two to the same table of cases.
 */
export function readLogRequest(value: unknown): LogRequest | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const body = value as Record<string, unknown>
  const eventType = readLabel(body.event_type, FieldLimit.eventType)
  const description = readText(body.description, FieldLimit.description)
  if (eventType === undefined || description === undefined) return undefined
  const out: LogRequest = { event_type: eventType, description }
  if ('platform_username' in body) {
    const name = body.platform_username
    if (name !== null && name !== undefined && !isPlatformUsername(name)) return undefined
    out.platform_username = name as string | null | undefined
  }
  if ('platform_user_id' in body) {
    const id = body.platform_user_id
    if (id !== null && id !== undefined && !isPlatformUserId(id)) return undefined
    out.platform_user_id = id as number | null | undefined
  }
  if ('issued_by' in body) {
    const by = body.issued_by
    if (by === null || by === undefined) out.issued_by = by
    else {
      const label = readLabel(by, FieldLimit.issuedBy)
      if (label === undefined) return undefined
      out.issued_by = label
    }
  }
  if ('code' in body) out.code = body.code
  return out
}

/** Most events in one batch (`{"events": [...]}`); more is a 413. A batch is one job, so this is at most FRONT_BATCH_MAX_EVENTS. */
export const MAX_LOG_BATCH_EVENTS = 500

/** Largest body of a log request, in bytes: a batch's (a single event's stays MAX_BODY_BYTES, 16 KiB). */
export const MAX_LOG_BATCH_BYTES = 1024 * 1024

/** The problems of one event of a batch, by its 0-based index. */
export interface EventIssues {
  index: number
  issues: FieldIssue[]
}

/** What a batch body is: its events, or why it is refused. */
export type LogBatchParse =
  | { ok: true; events: LogRequest[] }
  | { ok: false; kind: 'not_a_list' }
  | { ok: false; kind: 'empty' }
  | { ok: false; kind: 'too_many'; count: number }
  | { ok: false; kind: 'invalid'; events: EventIssues[] }

/** Whether a parsed body is the batch form: a JSON object with an `events` key. */
export function isLogBatchBody(value: unknown): value is { events: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'events' in value
}

/** The issues of one event: the schema's, and a malformed `code` (a 400 for a single event, one more issue here). */
export function logEventIssues(value: unknown): { ok: true; event: LogRequest } | { ok: false; issues: FieldIssue[] } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, issues: [{ field: 'event', message: 'must be a JSON object' }] }
  const fast = readLogRequest(value)
  if (fast !== undefined && (fast.code === undefined || fast.code === null || isCode(fast.code))) return { ok: true, event: fast }
  const parsed = v.safeParse(LogRequestSchema, value, { abortPipeEarly: true })
  const issues = parsed.success ? [] : toFieldIssues(parsed.issues)
  const code = (value as { code?: unknown }).code
  if (code !== undefined && code !== null && !isCode(code)) issues.push({ field: 'code', message: `must be ${CODE_FORMAT_TEXT}` })
  return parsed.success && issues.length === 0 ? { ok: true, event: parsed.output } : { ok: false, issues }
}

/** Reads a batch body, all or nothing: every event valid, or every invalid one named with its issues, in order. */
export function parseLogBatch(body: { events: unknown }): LogBatchParse {
  const list = body.events
  if (!Array.isArray(list)) return { ok: false, kind: 'not_a_list' }
  if (list.length === 0) return { ok: false, kind: 'empty' }
  if (list.length > MAX_LOG_BATCH_EVENTS) return { ok: false, kind: 'too_many', count: list.length }
  const events: LogRequest[] = []
  const invalid: EventIssues[] = []
  for (let index = 0; index < list.length; index++) {
    const checked = logEventIssues(list[index])
    if (checked.ok) events.push(checked.event)
    else invalid.push({ index, issues: checked.issues })
  }
  return invalid.length === 0 ? { ok: true, events } : { ok: false, kind: 'invalid', events: invalid }
}
