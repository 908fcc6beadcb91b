/**
 * Resolves a Roblox username to its user id through `POST {base}/v1/usernames/users`. Roblox also matches
 * previous usernames, so only a result whose current `name` equals the requested one counts. Results are
 * cached for a day (redis/roblox-user-cache.ts).
 */
import type { RobloxUserCache } from '../redis/roblox-user-cache.js'

/** Outcome of a resolution. */
export type Resolution =
  | { ok: true; id: string; name: string }
  | { ok: false; reason: 'unknown_username' | 'resolution_failed'; message: string }

/** Resolves usernames. */
export type ResolveUsername = (username: string) => Promise<Resolution>

const CACHE_SECONDS = 24 * 3600

/** Creates a resolver over the users API at `baseUrl` and the resolution cache. */
export function createRobloxUsers(opts: {
  baseUrl: string
  cache: RobloxUserCache
  timeoutMs?: number
  fetch?: typeof fetch
}): ResolveUsername {
  const doFetch = opts.fetch ?? fetch
  const timeoutMs = opts.timeoutMs ?? 3000
  return async (username) => {
    const cached = await opts.cache.get(username)
    if (cached !== null) return { ok: true, id: cached.id, name: cached.name }
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
    await opts.cache.put(username, { id: String(match.id), name: match.name }, CACHE_SECONDS)
    return { ok: true, id: String(match.id), name: match.name }
  }
}
