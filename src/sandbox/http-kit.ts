import type { IncomingMessage, ServerResponse } from 'node:http'
import { DiscordErrors, type DiscordErrorName } from './discord-errors.js'

/** What a route handler answers; {@link sendReply} turns it into the HTTP response. */
export interface Reply {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

/** A parsed incoming request as handlers see it. */
export interface RequestInfo {
  method: string
  path: string
  params: Record<string, string>
  query: URLSearchParams
  headers: IncomingMessage['headers']
  body: unknown
}

/** One route: method, template such as `/channels/:id/messages`, and its handler. */
export interface Route<C> {
  method: string
  template: string
  handler: (req: RequestInfo, ctx: C) => Reply | Promise<Reply>
}

/** Result of {@link matchRoute}: the route and its decoded path parameters. */
export interface RouteMatch<R> {
  route: R
  params: Record<string, string>
}

/** Largest request body accepted (bulk member loads of 100,000 members fit). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024

/** A JSON reply with the given status. */
export function json(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return headers ? { status, body, headers } : { status, body }
}

/** A 204 reply (sent with no body and no content type). */
export function noContent(): Reply {
  return { status: 204 }
}

/** A Discord-style error reply `{message, code}` from the shared error list. */
export function discordError(name: DiscordErrorName, extra?: Record<string, unknown>): Reply {
  const e = DiscordErrors[name]
  return { status: e.status, body: { message: e.message, code: e.code, ...extra } }
}

/** A control-API error reply `{error}`. */
export function controlError(status: number, error: string): Reply {
  return { status, body: { error } }
}

/** Writes a reply; a 204 or an undefined body goes out without a content type. */
export function sendReply(res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { ...reply.headers }
  if (reply.status === 204 || reply.body === undefined) {
    res.writeHead(reply.status, headers)
    res.end()
    return
  }
  const text = JSON.stringify(reply.body)
  headers['content-type'] = 'application/json'
  headers['content-length'] = String(Buffer.byteLength(text))
  res.writeHead(reply.status, headers)
  res.end(text)
}

/** Reads the whole request body, refusing more than {@link MAX_BODY_BYTES}. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    const buf = chunk as Buffer
    size += buf.length
    if (size > MAX_BODY_BYTES) throw new Error('request body too large')
    chunks.push(buf)
  }
  return Buffer.concat(chunks)
}

/** Result of {@link parseBody}: the parsed value, or why it could not be parsed. */
export type ParsedBody = { ok: true; value: unknown } | { ok: false; error: string }

/** Parses a JSON or multipart/form-data body (multipart: `payload_json` plus `files[n]` parts as attachments). */
export function parseBody(raw: Buffer, contentType: string | undefined): ParsedBody {
  if (raw.length === 0) return { ok: true, value: undefined }
  const type = contentType ?? ''
  if (type.startsWith('multipart/form-data')) return parseMultipart(raw, type)
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) as unknown }
  } catch {
    return { ok: false, error: 'body is not valid JSON' }
  }
}

function parseMultipart(raw: Buffer, contentType: string): ParsedBody {
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1]
  if (!boundary) return { ok: false, error: 'multipart body without boundary' }
  const delimiter = Buffer.from(`--${boundary}`)
  let payload: Record<string, unknown> = {}
  const attachments: Array<{ id: string; filename: string; size: number; content_type?: string }> = []
  let start = raw.indexOf(delimiter)
  while (start !== -1) {
    const partStart = start + delimiter.length
    const end = raw.indexOf(delimiter, partStart)
    if (end === -1) break
    // Each part is CRLF, headers, CRLFCRLF, content, CRLF.
    const part = raw.subarray(partStart + 2, end - 2)
    const split = part.indexOf('\r\n\r\n')
    if (split !== -1) {
      const head = part.subarray(0, split).toString('utf8')
      const content = part.subarray(split + 4)
      const name = /name="([^"]*)"/.exec(head)?.[1]
      const filename = /filename="([^"]*)"/.exec(head)?.[1]
      const partType = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]
      if (name === 'payload_json') {
        try {
          payload = JSON.parse(content.toString('utf8')) as Record<string, unknown>
        } catch {
          return { ok: false, error: 'payload_json is not valid JSON' }
        }
      } else if (filename !== undefined) {
        const file = { id: String(attachments.length), filename, size: content.length }
        attachments.push(partType ? { ...file, content_type: partType } : file)
      }
    }
    start = end
  }
  return { ok: true, value: attachments.length > 0 ? { ...payload, __files: attachments } : payload }
}

/** Finds the route for a method and path; literal segments win over `:params` (so `@original` beats `:mid`). */
export function matchRoute<R extends { method: string; template: string }>(routes: readonly R[], method: string, path: string): RouteMatch<R> | null {
  const segments = path.split('/').filter((s) => s.length > 0)
  let best: RouteMatch<R> | null = null
  let bestLiterals = -1
  for (const route of routes) {
    if (route.method !== method) continue
    const parts = route.template.split('/').filter((s) => s.length > 0)
    if (parts.length !== segments.length) continue
    const params: Record<string, string> = {}
    let literals = 0
    let ok = true
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as string
      let segment: string
      try {
        segment = decodeURIComponent(segments[i] as string)
      } catch {
        ok = false
        break
      }
      if (part.startsWith(':')) {
        params[part.slice(1)] = segment
      } else if (part === segment) {
        literals++
      } else {
        ok = false
        break
      }
    }
    if (ok && literals > bestLiterals) {
      best = { route, params }
      bestLiterals = literals
    }
  }
  return best
}

/** True for a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
