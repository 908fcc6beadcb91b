/**
 * The one place where outcomes become HTTP statuses and bodies. JSON errors are always
 * `{detail: {status, code, message, ...}}`: `status` is the spec's bind status where one applies, else `error`;
 * `code` is from the ErrorCode list. Text endpoints (callbacks, rpc) answer errors in plain text. Replies are values;
 * the pipeline (pipeline.ts) writes them.
 */
import { INVALIDATED_MESSAGE, isCode } from '../codes/model/codes.js'
import { ErrorCode } from './model/error-codes.js'
import type { FieldIssue } from './model/fields.js'
import type { BindJobResult } from '../queue/model/jobs.js'

/** A response to send: status, body and extra headers. */
export interface Reply {
  status: number
  /** The body; a Buffer holds it already encoded as UTF-8 (an answer given again and again is encoded once). */
  body: string | Buffer
  type: 'json' | 'text'
  headers?: Record<string, string>
  /** Error code for logs and metrics, when the reply is an error. */
  error?: ErrorCode
}

/**
 * Longest request target (path and query) the front reads; longer ones get 414. uWS 20.30 drops, without an answer, a
 * request head over 4 KiB that arrives in more than one read (as any head may over a real network), so the target
 * stays well inside that with room for the headers. MAX_CODES_PER_REQUEST codes (at most 600) always fit.
 */
export const MAX_TARGET_BYTES = 3072

/** A JSON success reply. */
export function jsonOk(body: unknown): Reply {
  return { status: 200, body: JSON.stringify(body), type: 'json' }
}

/** A JSON error reply in the common shape. */
export function jsonError(
  status: number,
  code: ErrorCode,
  message: string,
  extra: Record<string, unknown> = {},
  headers?: Record<string, string>,
  specStatus = 'error',
): Reply {
  const reply: Reply = { status, type: 'json', error: code, body: JSON.stringify({ detail: { status: specStatus, code, message, ...extra } }) }
  if (headers !== undefined) reply.headers = headers
  return reply
}

/** A plain-text error reply (callbacks and rpc). */
export function textError(status: number, code: ErrorCode, message: string, headers?: Record<string, string>): Reply {
  const reply: Reply = { status, type: 'text', error: code, body: `${message}\n` }
  if (headers !== undefined) reply.headers = headers
  return reply
}

/** 429 for a JSON endpoint; `budget` names the budget that ran out (the route's, or `log_events`). */
export function rateLimitedJson(retryAfterSeconds: number, limit: number, windowSeconds: number, budget: string, unit = 'requests'): Reply {
  return jsonError(
    429,
    ErrorCode.RateLimited,
    `rate limit exceeded: ${limit} ${unit} per ${windowSeconds} seconds per IP; retry in ${retryAfterSeconds} s`,
    { retry_after: retryAfterSeconds, limit: budget },
    { 'retry-after': String(retryAfterSeconds) },
  )
}

/** 429 for a text endpoint. */
export function rateLimitedText(retryAfterSeconds: number, limit: number, windowSeconds: number): Reply {
  return textError(
    429,
    ErrorCode.RateLimited,
    `rate limit exceeded: ${limit} requests per ${windowSeconds} seconds per IP; retry in ${retryAfterSeconds} s`,
    { 'retry-after': String(retryAfterSeconds) },
  )
}

/** 413 for a body over `maxBytes`. */
export function bodyTooLarge(maxBytes: number): Reply {
  return jsonError(413, ErrorCode.BodyTooLarge, `the body must be at most ${maxBytes} bytes`, { max_bytes: maxBytes })
}

/** 401 with the challenge header. */
export function unauthorized(message: string, specStatus = 'error'): Reply {
  return jsonError(401, ErrorCode.Unauthorized, message, {}, { 'www-authenticate': 'Bearer' }, specStatus)
}

/** 422 for a body that failed validation. */
export function validationFailed(issues: FieldIssue[]): Reply {
  const summary = issues.map((i) => `${i.field} ${i.message}`).join('; ')
  return jsonError(422, ErrorCode.ValidationFailed, `invalid body: ${summary}`, { issues })
}

/** 400 for a code that is not 4 characters A-Z or 0-9. */
export function invalidCode(): Reply {
  return jsonError(400, ErrorCode.InvalidCode, 'invalid code: codes are exactly 4 characters, each A-Z or 0-9')
}

/** 400 for an optional `code` that is present but malformed; null when absent or valid. */
export function invalidOptionalCode(code: unknown): Reply | null {
  return code === undefined || code === null || isCode(code) ? null : invalidCode()
}

/** 503 when the queue (Redis) cannot take the job. */
export function queueUnavailable(): Reply {
  return jsonError(503, ErrorCode.QueueUnavailable, 'the service cannot accept this right now; retry shortly', {}, { 'retry-after': '5' })
}

/** A 503 `service_unavailable` with Retry-After, in JSON or in text. */
function unavailable(type: 'json' | 'text', message: string, retryAfterSeconds: number): Reply {
  const headers = { 'retry-after': String(retryAfterSeconds) }
  return type === 'text'
    ? textError(503, ErrorCode.ServiceUnavailable, message, headers)
    : jsonError(503, ErrorCode.ServiceUnavailable, message, {}, headers)
}

/** 503 while a dependency every request needs (Redis) is unreachable: JSON for the JSON routes, text for callbacks and rpc. */
export function serviceUnavailable(type: 'json' | 'text'): Reply {
  return unavailable(type, 'temporarily unavailable; retry shortly', 5)
}

/** A request that reached a front after it began to stop: another front (or this one restarted) takes it. */
export function shuttingDown(type: 'json' | 'text'): Reply {
  return unavailable(type, 'this server is shutting down; retry shortly', 1)
}

const BIND_FAILURE: Record<'not_found' | 'banned' | 'invalidated', { http: number; message: string }> = {
  not_found: { http: 404, message: 'no such code: check the code shown by the /code command' },
  banned: { http: 403, message: 'this code is banned; contact support' },
  invalidated: { http: 409, message: INVALIDATED_MESSAGE },
}

/** Maps a bind job's result to the spec's bind response. */
export function bindReply(result: BindJobResult): Reply {
  switch (result.status) {
    case 'bound':
    case 'already_bound':
      return jsonOk({ status: result.status, platform_username: result.platformUsername })
    case 'error':
      return result.reason === 'unknown_username'
        ? jsonError(422, ErrorCode.UnknownUsername, result.message)
        : jsonError(502, ErrorCode.UpstreamFailed, `could not resolve the username: ${result.message}`)
    default: {
      const failure = BIND_FAILURE[result.status]
      return {
        status: failure.http,
        type: 'json',
        body: JSON.stringify({ detail: { status: result.status, message: failure.message } }),
      }
    }
  }
}

/** 414 when the request target (`path`, and `query` without its `?`) is longer than MAX_TARGET_BYTES; null otherwise. */
export function targetTooLong(path: string, query: string | undefined, text: boolean): Reply | null {
  // uWS gives no query (undefined) when the target has no `?`.
  const length = path.length + (query !== undefined && query.length > 0 ? query.length + 1 : 0)
  if (length <= MAX_TARGET_BYTES) return null
  const message = `the request target is ${length} bytes; at most ${MAX_TARGET_BYTES} are read`
  return text ? textError(414, ErrorCode.UriTooLong, message) : jsonError(414, ErrorCode.UriTooLong, message)
}
