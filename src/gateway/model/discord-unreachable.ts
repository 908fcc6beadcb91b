/**
 * Discord not reachable over the network (a DNS failure, a refused or reset connection, a timeout): unlike a refusal
 * (discord-refusal.ts) this passes by itself, so the gateway waits and tries again with a growing pause, and says so
 * in one line per cause naming `DISCORD_API`, without a stack. Pure: recognises the failure and words the line.
 */

/** Error codes (Node's `err.code` or undici's `err.cause.code`) that mean the network did not carry the request. */
const NETWORK_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
])

interface ErrorLike {
  code?: unknown
  message?: unknown
  cause?: unknown
}

function codeOf(err: unknown): { code: string; message: string } | null {
  let seen: unknown = err
  // fetch wraps the socket's error: `TypeError: fetch failed` with the real one as its cause (sometimes two deep).
  for (let depth = 0; depth < 4 && typeof seen === 'object' && seen !== null; depth++) {
    const e = seen as ErrorLike
    if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return { code: e.code, message: typeof e.message === 'string' ? e.message : e.code }
    seen = e.cause
  }
  return null
}

/** The network cause of `err` (`getaddrinfo ENOTFOUND discord.invalid`), or null when it is not a network failure. */
export function networkCause(err: unknown): string | null {
  const found = codeOf(err)
  if (found === null) return null
  return found.message.includes(found.code) ? found.message : `${found.code}: ${found.message}`
}

/** The one line logged while Discord cannot be reached (`api` is DISCORD_API's value, `retryMs` the next pause). */
export function unreachableLine(api: string, cause: string, retryMs: number): string {
  return `Discord is unreachable at DISCORD_API=${api} (network: ${cause}); check DISCORD_API and this machine's DNS and outbound network. Retrying, next in ${Math.round(retryMs / 100) / 10} s, then ever more slowly (at most every 30 s)`
}
