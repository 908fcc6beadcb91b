/**
 * The stream protocol's wire format, pure (docs/api.md "Streams"): server-sent event framing, the WebSocket JSON
 * messages, and the limit decisions a front takes when a stream opens or subscribes.
 *
 * SSE: each block is one `event: block` whose data lines are the block's lines, so that an SSE client, which joins
 * data lines with `\n` and drops the last one, receives the block text exactly as callbacks renders it (trailing
 * newline included). Errors are `event: error` with a JSON data line `{code, message}`.
 * WebSocket: every message is one JSON object with an `op`: `block`, `subscribed`, `unsubscribed` or `error`.
 */
import { isCode } from '../../codes/model/codes.js'
import type { ErrorCode } from '../../http/model/error-codes.js'

/** Which rendering a stream carries: callbacks blocks (the default) or rpc blocks. */
export type StreamView = 'callbacks' | 'rpc'

/** Reads the `view` query parameter; undefined when it names no view. Absent or empty means callbacks. */
export function parseStreamView(raw: string | undefined): StreamView | undefined {
  if (raw === undefined || raw === '' || raw === 'callbacks') return 'callbacks'
  return raw === 'rpc' ? 'rpc' : undefined
}

/** One SSE event carrying `text`: every line of it becomes one `data:` line (the last, after the final `\n`, is empty). */
export function sseEvent(event: string, id: string | null, text: string): string {
  let out = id === null ? `event: ${event}\n` : `event: ${event}\nid: ${id}\n`
  // A block never holds \r (activity text is sanitized), but a lone \r would end an SSE line: treat it as a break too.
  for (const line of text.split(/\r\n|\r|\n/)) out += `data: ${line}\n`
  return `${out}\n`
}

/** The SSE event of one block. `seq` numbers the stream's events from 1. */
export function sseBlock(seq: number, block: string): string {
  return sseEvent('block', String(seq), block)
}

/** The SSE event of an error: one JSON data line. */
export function sseError(code: ErrorCode, message: string): string {
  return sseEvent('error', null, JSON.stringify({ code, message }))
}

/** The SSE heartbeat: a comment line, ignored by clients, that keeps proxies from closing an idle connection. */
export const SSE_HEARTBEAT = ': ping\n\n'

/** A WebSocket message carrying one block. */
export function wsBlock(code: string, block: string): string {
  return JSON.stringify({ op: 'block', code, block })
}

/** A WebSocket message confirming a subscribe or unsubscribe (sent after the blocks of a subscribe). */
export function wsAck(op: 'subscribed' | 'unsubscribed', codes: readonly string[]): string {
  return JSON.stringify({ op, codes })
}

/** A WebSocket error message; `codes` names the codes it concerns, when it concerns some. */
export function wsError(code: ErrorCode, message: string, codes?: readonly string[]): string {
  return JSON.stringify(codes === undefined ? { op: 'error', code, message } : { op: 'error', code, message, codes })
}

/** The codes of a subscribe/unsubscribe message: distinct, in first-seen order, or the entries that are not codes. */
export function readMessageCodes(entries: readonly string[]): { ok: true; codes: string[] } | { ok: false; invalid: string[] } {
  const invalid: string[] = []
  const seen = new Set<string>()
  for (const entry of entries) {
    if (isCode(entry)) seen.add(entry)
    else if (invalid.length < 10) invalid.push(String(entry).slice(0, 16))
  }
  return invalid.length > 0 ? { ok: false, invalid } : { ok: true, codes: [...seen] }
}

/** Why a stream may not open, or null when it may. */
export function streamOpenRefusal(
  openForClient: number,
  maxPerClient: number,
): { code: ErrorCode; status: number; message: string } | null {
  if (openForClient >= maxPerClient) {
    return { code: 'too_many_streams', status: 429, message: `too many open streams: at most ${maxPerClient} per client; close one first` }
  }
  return null
}

/** Why `adding` more subscriptions are refused, or null when they fit both the stream's and the worker's maximum. */
export function subscriptionRefusal(
  streamCodes: number,
  adding: number,
  maxCodes: number,
  workerSubscriptions: number,
  maxSubscriptions: number,
): { code: ErrorCode; status: number; message: string } | null {
  if (streamCodes + adding > maxCodes) return { code: 'too_many_codes', status: 400, message: `too many codes: at most ${maxCodes} per stream` }
  if (workerSubscriptions + adding > maxSubscriptions) {
    return { code: 'stream_capacity', status: 503, message: 'this server follows as many codes as it can; retry shortly (another server may take it)' }
  }
  return null
}

/** Malformed messages a WebSocket client may send before it is disconnected. */
export const MAX_BAD_MESSAGES = 10
