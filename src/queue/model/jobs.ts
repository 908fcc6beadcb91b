/** Job payloads and results, validated again where they are read: a payload that fails can never succeed. */
import * as v from 'valibot'
import { isLogCategory, LOG_CATEGORIES } from './log-categories.js'
import { CodeSchema, isCode } from '../../codes/model/codes.js'

/** A bind job. */
export const BindJobSchema = v.object({
  code: CodeSchema,
  platformUsername: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_]{3,20}$/)),
  platformUserId: v.nullable(v.pipe(v.string(), v.regex(/^[1-9]\d{0,15}$/))),
  source: v.string(),
  requestId: v.string(),
})

/** A bind job's payload. */
export type BindJob = v.InferOutput<typeof BindJobSchema>

/** What a bind job returns to the waiting front process; the front validates it before answering. */
export const BindJobResultSchema = v.variant('status', [
  v.object({ status: v.picklist(['bound', 'already_bound']), platformUsername: v.string() }),
  v.object({ status: v.picklist(['not_found', 'banned', 'invalidated']) }),
  v.object({ status: v.literal('error'), reason: v.picklist(['unknown_username', 'resolution_failed']), message: v.string() }),
])

/** A bind job's result. */
export type BindJobResult = v.InferOutput<typeof BindJobResultSchema>

/** A log job (API or service); `receivedAt` is epoch ms. */
export const LogJobSchema = v.object({
  category: v.picklist(LOG_CATEGORIES),
  eventType: v.string(),
  description: v.string(),
  platformUsername: v.nullable(v.string()),
  platformUserId: v.nullable(v.pipe(v.string(), v.regex(/^[1-9]\d{0,19}$/))),
  issuedBy: v.nullable(v.string()),
  code: v.nullable(CodeSchema),
  source: v.string(),
  sourceIp: v.nullable(v.string()),
  data: v.optional(v.unknown()),
  receivedAt: v.number(),
})

/** A log job's payload. */
export type LogJob = v.InferOutput<typeof LogJobSchema>

const PLATFORM_USER_ID = /^[1-9]\d{0,19}$/

const nullableString = (x: unknown): x is string | null => x === null || typeof x === 'string'

/**
 * Reads a log job exactly as LogJobSchema does (the same events pass, the output holds the same fields), without the
 * schema machinery: the worker reads every event of every batch, and there the generic parse was a measurable share
 * of its work. test/queue/model/jobs.test.ts holds the two to the same table of cases.
 */
export function readLogJob(value: unknown): LogJob | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const e = value as Record<string, unknown>
  const { category, eventType, description, platformUsername, platformUserId, issuedBy, code, source, sourceIp, receivedAt } = e
  if (typeof category !== 'string' || !isLogCategory(category)) return undefined
  if (typeof eventType !== 'string' || typeof description !== 'string' || typeof source !== 'string') return undefined
  if (!nullableString(platformUsername) || !nullableString(issuedBy) || !nullableString(sourceIp)) return undefined
  if (!(platformUserId === null || (typeof platformUserId === 'string' && PLATFORM_USER_ID.test(platformUserId)))) return undefined
  if (!(code === null || isCode(code))) return undefined
  if (typeof receivedAt !== 'number' || Number.isNaN(receivedAt)) return undefined
  const job: LogJob = { category, eventType, description, platformUsername, platformUserId, issuedBy, code, source, sourceIp, receivedAt }
  if ('data' in e) job.data = e.data
  return job
}

/** A "your code was linked" notice for the chat user (the notify queue). */
export const BoundNoticeSchema = v.object({
  chatUserId: v.pipe(v.string(), v.regex(/^\d{1,20}$/)),
  code: CodeSchema,
  platformUsername: v.string(),
  platformUserId: v.string(),
})

/** A bound notice's payload. */
export type BoundNotice = v.InferOutput<typeof BoundNoticeSchema>
