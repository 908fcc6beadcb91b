/*
 * Request bodies for every sandbox API: read whole with a size cap, then parsed as JSON, or as Discord's multipart form
 * (`payload_json` plus `files[n]` parts: discord.js `send({files})`). Own code, not a package: the sandbox runs on
 * node:http (the `ws` gateway needs its upgrade event), so hyper-express's body parsing is not available, and the
 * multipart reader only records each file's name, size and type, which a few lines do without a streaming parser.
 */
import type { IncomingMessage } from 'node:http'

/** Largest request body accepted (bulk member loads of 100,000 members fit). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024

/** Reads the whole request body; rejects once more than {@link MAX_BODY_BYTES} arrive. */
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

/** True for a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
