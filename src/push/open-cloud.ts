/**
 * Roblox Open Cloud messaging: `POST {OPEN_CLOUD_API}/cloud/v2/universes/{universe}:publishMessage` with the
 * universe's key in `x-api-key` and `{"topic", "message"}` (creator-docs, cloud/guides/usage-messaging). A success is
 * 200 with an empty body; errors follow the v2 model `{code, message, details}`. The key is only ever put in that
 * header: never in a URL, an error or a log line.
 */
import { PUSH_TOPIC } from './model/push-message.js'

/** How Open Cloud answered one publish. */
export type PublishOutcome =
  | { ok: true; status: number }
  | {
      ok: false
      /** HTTP status, or 0 when no answer came (network failure, timeout). */
      status: number
      /** The v2 error `code` (RESOURCE_EXHAUSTED, PERMISSION_DENIED, ...), when the body had one. */
      code: string | null
      message: string
      /** The Retry-After header as sent, if any. */
      retryAfter: string | null
    }

/** Publishes one message to a universe's topic. */
export type OpenCloudPublish = (universe: number, apiKey: string, message: string) => Promise<PublishOutcome>

/** How long one publish may take before it counts as a network failure. */
export const PUBLISH_TIMEOUT_MS = 5000

/** The publish function against `base` (OPEN_CLOUD_API, without a trailing slash). */
export function createOpenCloudPublish(base: string, timeoutMs = PUBLISH_TIMEOUT_MS): OpenCloudPublish {
  return async (universe, apiKey, message) => {
    let res: Response
    try {
      res = await fetch(`${base}/cloud/v2/universes/${universe}:publishMessage`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ topic: PUSH_TOPIC, message }),
        signal: AbortSignal.timeout(timeoutMs),
      })
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code
      return { ok: false, status: 0, code: null, message: cause ?? (err as Error).name ?? 'network error', retryAfter: null }
    }
    const text = await res.text().catch(() => '')
    if (res.ok) return { ok: true, status: res.status }
    let code: string | null = null
    let detail = text.slice(0, 300)
    try {
      const body = JSON.parse(text) as { code?: unknown; error?: unknown; message?: unknown }
      const c = body.code ?? body.error
      if (typeof c === 'string') code = c
      if (typeof body.message === 'string') detail = body.message.slice(0, 300)
    } catch {
      // not JSON: the text itself is the message
    }
    return { ok: false, status: res.status, code, message: detail, retryAfter: res.headers.get('retry-after') }
  }
}

/** What a refusal means for the publisher: wait and retry, or stop using the target until it is fixed. */
export function refusalKind(outcome: Extract<PublishOutcome, { ok: false }>): 'rate_limited' | 'server_error' | 'network' | 'refused' {
  if (outcome.status === 429) return 'rate_limited'
  if (outcome.status === 0) return 'network'
  if (outcome.status >= 500) return 'server_error'
  return 'refused'
}

/** One line describing an outcome for an operator (`push test`, logs), without the key. */
export function describeOutcome(outcome: PublishOutcome): string {
  if (outcome.ok) return `${outcome.status} OK`
  if (outcome.status === 0) return `no answer (${outcome.message})`
  return `${outcome.status}${outcome.code === null ? '' : ` ${outcome.code}`}: ${outcome.message || '(no message)'}`
}
