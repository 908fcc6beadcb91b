/**
 * What one front process knows of per-client rate-limit windows, and what it may answer without Redis (pure: the
 * clock comes in as `now`, ms of a monotonic clock). Redis holds each window's count (rate-limits.ts); a front keeps,
 * per route and client:
 *
 * - when the window ends (`endsAt`, a lower bound: the time the count was sent plus the ms Redis said were left), so
 *   it never reads the expiry again and never acts on a window after it ended;
 * - the highest count it has seen (`used`): at the budget, the client is refused here until the window ends, without
 *   Redis (counts only grow within a window, so Redis would refuse it too);
 * - at most one spare: a point already counted in Redis for this client (a lease of one request), taken after an
 *   answered request while the count leaves at least SPARE_RESERVE points, and spent on the client's next request
 *   here, which is then answered at once. A spare is counted before it is spent, so no front ever answers more than
 *   the budget; one this front holds when the client stops coming here is lost to the client until the window ends.
 *
 * The table is bounded: when full, the oldest eighth of its entries (by when their window was learnt) is forgotten;
 * a forgotten client costs one more Redis count (and its spare), never a wrong answer.
 */

/** Where a client stands in a route's window, for the RateLimit-* headers. */
export interface RateLimitState {
  limit: number
  remaining: number
  resetSeconds: number
}

/** Outcome of one check; `state` is absent when limits are off. */
export type RateLimitOutcome =
  | { ok: true; state?: RateLimitState }
  | { ok: false; retryAfterSeconds: number; limit: number; windowSeconds: number; state: RateLimitState }

/** A route's budget: `points` requests per `seconds` per client. */
export interface WindowBudget {
  points: number
  seconds: number
}

/** Points a spare must leave in the window: the last ones are always counted in Redis one request at a time. */
export const SPARE_RESERVE = 1

/** What this front knows of one client's window of one route. */
export interface KnownWindow {
  /** When the window ends at the latest, on the caller's clock. */
  endsAt: number
  /** The highest count of this window this front has seen (its own requests and spares). */
  used: number
  /** The count of the spare this front holds, or 0 for none. */
  spare: number
  /** A spare has been asked for and not answered yet. */
  refilling: boolean
}

/** The bounded table of known windows, keyed by the route's count key. */
export interface WindowTable {
  /** The window of `key` while it has not ended at `now` (an ended one is forgotten, its spare with it). */
  get(key: string, now: number): KnownWindow | undefined
  /** Records a window newly learnt (or replaces one). */
  set(key: string, window: KnownWindow): void
  /** Entries held (ended ones included until they are looked up or pushed out). */
  readonly size: number
}

/** Creates a table of at most `maxEntries` windows (at least 1). */
export function createWindowTable(maxEntries: number): WindowTable {
  const max = Number.isFinite(maxEntries) && maxEntries >= 1 ? Math.floor(maxEntries) : 1
  const windows = new Map<string, KnownWindow>()
  const makeRoom = () => {
    let drop = Math.max(1, Math.ceil(max / 8))
    for (const key of windows.keys()) {
      windows.delete(key)
      if (--drop === 0) break
    }
  }
  return {
    get(key, now) {
      const known = windows.get(key)
      if (known === undefined || known.endsAt > now) return known
      windows.delete(key)
      return undefined
    },
    set(key, window) {
      // Deleted first so the entry moves to the end: the oldest entries are the ones pushed out.
      if (!windows.delete(key) && windows.size >= max) makeRoom()
      windows.set(key, window)
    },
    get size() {
      return windows.size
    },
  }
}

/** Whole seconds until `msLeft` has passed, never negative. */
function secondsUntil(msLeft: number): number {
  return Math.max(0, Math.ceil(msLeft / 1000))
}

/** The outcome of a request counted as the `used`-th of its window, `msLeft` before the window ends. */
export function outcomeOf(budget: WindowBudget, used: number, msLeft: number): RateLimitOutcome {
  if (used > budget.points) return refusal(budget, msLeft)
  return { ok: true, state: { limit: budget.points, remaining: budget.points - used, resetSeconds: secondsUntil(msLeft) } }
}

/** The refusal of a client over its budget, `msLeft` before its window ends (Retry-After is at least 1 s). */
export function refusal(budget: WindowBudget, msLeft: number): RateLimitOutcome {
  return {
    ok: false,
    retryAfterSeconds: Math.max(1, secondsUntil(msLeft)),
    limit: budget.points,
    windowSeconds: budget.seconds,
    state: { limit: budget.points, remaining: 0, resetSeconds: secondsUntil(msLeft) },
  }
}

/**
 * What this front can answer alone for a client whose window it knows: a refusal once the budget is spent, or the
 * request answered from the spare (which is then used up); undefined when Redis must count the request.
 */
export function answerLocally(window: KnownWindow, budget: WindowBudget, now: number): RateLimitOutcome | undefined {
  // A spare is spent even when a later count reached the budget: it was counted, so it is the client's.
  if (window.spare > 0) {
    const outcome = outcomeOf(budget, window.spare, window.endsAt - now)
    window.spare = 0
    return outcome
  }
  return window.used >= budget.points ? refusal(budget, window.endsAt - now) : undefined
}

/** The count at or below which a spare may be taken (0: never). */
export function spareCeiling(budget: WindowBudget): number {
  return Math.max(0, budget.points - SPARE_RESERVE)
}

/** Whether to ask Redis for a spare now: none held or asked for, and the count leaves room for one. */
export function wantsSpare(window: KnownWindow, budget: WindowBudget): boolean {
  return !window.refilling && window.spare === 0 && window.used + 1 <= spareCeiling(budget)
}

/**
 * The window after Redis counted a request as the `used`-th of its window: `current` is what the table holds for
 * the client now, `sent` what it held when the request was sent (the script then did not read the expiry), and
 * `msLeft` the ms Redis said were left (-1 when not read). A count of 1 opened a new window, so nothing known of an
 * earlier one (its spare included) carries over. Otherwise it is the window already known: a window can only have
 * changed in Redis after its end, and a known window is dropped from the table at its end (a lower bound), so
 * `current` is never an older window than the one counted.
 */
export function afterCount(current: KnownWindow | undefined, sent: KnownWindow | undefined, used: number, msLeft: number, sentAt: number): KnownWindow {
  const same = current ?? sent
  if (used === 1 || same === undefined) return { endsAt: sentAt + Math.max(0, msLeft), used, spare: 0, refilling: false }
  same.used = Math.max(same.used, used)
  return same
}

/** Records the answer to a spare asked for: `granted` is the spare's count in the window, or 0 when refused. */
export function afterSpare(window: KnownWindow, granted: number, budget: WindowBudget): void {
  window.refilling = false
  if (granted > 0) {
    window.spare = granted
    window.used = Math.max(window.used, granted)
  } else {
    // Refused: the count is past the ceiling (or the window is gone); no more spares in this window.
    window.used = Math.max(window.used, spareCeiling(budget))
  }
}
