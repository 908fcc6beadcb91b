/** Job payloads, validated again by the workers: a payload that fails can never succeed. */
import * as v from 'valibot'
import { LOG_CATEGORIES } from './log-request.js'

/** A bind job. */
export const BindJobSchema = v.object({
  code: v.pipe(v.string(), v.regex(/^[A-Z0-9]{4}$/)),
  platformUsername: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_]{3,20}$/)),
  platformUserId: v.nullable(v.pipe(v.string(), v.regex(/^[1-9]\d{0,15}$/))),
  source: v.string(),
  requestId: v.string(),
})

/** A bind job's payload. */
export type BindJob = v.InferOutput<typeof BindJobSchema>

/** What a bind job returns to the waiting front process. */
export type BindJobResult =
  | { status: 'bound' | 'already_bound'; platformUsername: string }
  | { status: 'not_found' | 'banned' | 'invalidated' }
  | { status: 'error'; reason: 'unknown_username' | 'resolution_failed'; message: string }

/** A log job (API or service); `receivedAt` is epoch ms. */
export const LogJobSchema = v.object({
  category: v.picklist(LOG_CATEGORIES),
  eventType: v.string(),
  description: v.string(),
  platformUsername: v.nullable(v.string()),
  platformUserId: v.nullable(v.pipe(v.string(), v.regex(/^[1-9]\d{0,19}$/))),
  issuedBy: v.nullable(v.string()),
  code: v.nullable(v.pipe(v.string(), v.regex(/^[A-Z0-9]{4}$/))),
  source: v.string(),
  sourceIp: v.nullable(v.string()),
  data: v.optional(v.unknown()),
  receivedAt: v.number(),
})

/** A log job's payload. */
export type LogJob = v.InferOutput<typeof LogJobSchema>
