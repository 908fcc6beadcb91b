/*
 * Tally of answered fake-Discord REST and fake-Roblox calls by `METHOD /route/template STATUS`, reported by
 * `GET /control/requests` so tests can assert how many calls the service made. A plain map: this is a report, not a
 * limiter (the limiter is RateLimiterMemory in discord-rest/rate-limits.ts).
 */
/** Counts REST calls by `METHOD /route/template STATUS` for `GET /control/requests`. */
export interface RequestCounter {
  /** Counts one answered request. */
  count(method: string, template: string, status: number): void
  /** Total and per-route counts. */
  snapshot(): { total: number; byRoute: Record<string, number> }
  /** Resets every counter to zero. */
  clear(): void
}

/** Creates an empty request counter. */
export function createRequestCounter(): RequestCounter {
  let byRoute = new Map<string, number>()
  let total = 0
  return {
    count(method, template, status) {
      const key = `${method} ${template} ${status}`
      byRoute.set(key, (byRoute.get(key) ?? 0) + 1)
      total++
    },
    snapshot() {
      return { total, byRoute: Object.fromEntries(byRoute) }
    },
    clear() {
      byRoute = new Map()
      total = 0
    },
  }
}
