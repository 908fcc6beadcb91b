/*
 * What every sandbox handler answers and how it goes on the wire. A 204 or an empty body is sent without a content
 * type: discord.js (undici) parses any `application/json` response, and an empty one would fail the call.
 */
import type { ServerResponse } from 'node:http'

/** What a route handler answers; {@link sendReply} turns it into the HTTP response. */
export interface Reply {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

/** A JSON reply with the given status. */
export function json(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return headers ? { status, body, headers } : { status, body }
}

/** A 204 reply (sent with no body and no content type). */
export function noContent(): Reply {
  return { status: 204 }
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
