/**
 * Entity tags of the callbacks and rpc bodies, pure: a strong ETag derived from the body's bytes, and the
 * `If-None-Match` test of RFC 9110 section 13.1.2 (weak comparison; `*` matches any current body).
 */

/** The strong ETag of a body whose digest (base64url, computed by the caller) is `digest`: `"<digest>"`. */
export function etagOf(digest: string): string {
  return `"${digest}"`
}

// An entity tag as RFC 9110 writes it: optional W/ then a quoted opaque tag (which may itself contain commas).
const ENTITY_TAG = /(?:W\/)?"([\x21\x23-\x7e\x80-\xff]*)"/g

/**
 * True when an `If-None-Match` header value matches `etag` (one of ours, strong): `*`, or a list holding the same
 * opaque tag, weak or strong (weak comparison). Anything unparseable matches nothing, so the full body is sent.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  const value = header.trim()
  if (value === '*') return true
  const opaque = etag.slice(1, -1)
  for (const match of value.matchAll(ENTITY_TAG)) if (match[1] === opaque) return true
  return false
}
