/**
 * Resolves a Roblox username to its user id through `POST {base}/v1/usernames/users`. Roblox also matches
 * previous usernames, so only a result whose current `name` equals the requested one counts. Results are
 * cached in Redis for a day.
 */
import type { Redis } from 'ioredis'

/** Outcome of a resolution. */
export type Resolution =
  | { ok: true; id: string; name: string }
  | { ok: false; reason: 'unknown_username' | 'resolution_failed'; message: string }

/** Resolves usernames. */
export type ResolveUsername = (username: string) => Promise<Resolution>

const CACHE_SECONDS = 24 * 3600

/** Creates a resolver; `cacheKey` maps a username to its Redis key. */
export function createRobloxUsers(opts: {
  baseUrl: string
  redis: Redis
  cacheKey: (name: string) => string
  timeoutMs?: number
  fetch?: typeof fetch
}): ResolveUsername {
  const doFetch = opts.fetch ?? fetch
  const timeoutMs = opts.timeoutMs ?? 3000
  return async (username) => {
    const key = opts.cacheKey(username)
    const cached = await opts.redis.get(key)
    if (cached !== null) {
      const [id, name] = cached.split('|')
      if (id !== undefined && name !== undefined) return { ok: true, id, name }
    }
    let body: unknown
    try {
      const res = await doFetch(`${opts.baseUrl}/v1/usernames/users`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ usernames: [username], excludeBannedUsers: false }),
        signal: AbortSignal.timeout(timeoutMs),
      })
      if (!res.ok) {
        return { ok: false, reason: 'resolution_failed', message: `Roblox users API answered HTTP ${res.status}` }
      }
      body = await res.json()
    } catch (err) {
      return { ok: false, reason: 'resolution_failed', message: `Roblox users API unreachable: ${(err as Error).message}` }
    }
    const data = (body as { data?: unknown }).data
    if (!Array.isArray(data)) return { ok: false, reason: 'resolution_failed', message: 'Roblox users API gave an unexpected body' }
    const match = data.find(
      (u: { name?: unknown; id?: unknown }) =>
        typeof u.name === 'string' && u.name.toLowerCase() === username.toLowerCase() && Number.isSafeInteger(u.id),
    ) as { id: number; name: string } | undefined
    if (match === undefined) return { ok: false, reason: 'unknown_username', message: `no Roblox user is named ${username}` }
    await opts.redis.set(key, `${match.id}|${match.name}`, 'EX', CACHE_SECONDS)
    return { ok: true, id: String(match.id), name: match.name }
  }
}
