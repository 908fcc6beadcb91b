/**
 * Which codes of a callbacks or rpc request are "unknown" to a harvester's budget: not found (including revoked),
 * or issued but not yet linked. Pure. Linked codes (active, paused, banned, invalidated) never cost budget, so a
 * game server polling its own players is never slowed.
 */
import type { CodeView } from '../../presence/model/blocks.js'

/** Length of one client's budget window, in seconds (the "per hour"). */
export const UNKNOWN_CODE_WINDOW_SECONDS = 3600

/** True when a view tells a harvester the code is unused or can still be squatted. */
export function isUnknownView(view: CodeView): boolean {
  return view.kind === 'not_found' || view.kind === 'not_linked'
}

/** The codes whose views are unknown, in request order. */
export function unknownCodes(codes: readonly string[], views: readonly CodeView[]): string[] {
  const out: string[] = []
  for (let i = 0; i < codes.length; i++) if (isUnknownView(views[i]!)) out.push(codes[i]!)
  return out
}

/** The plain-text reason of the 429 a client gets past its budget. */
export function unknownCodeBudgetMessage(budget: number, windowSeconds: number, retryAfterSeconds: number): string {
  return `too many unknown codes: this client asked for more than ${budget} distinct codes that are not linked to an account within ${windowSeconds / 60} minutes; retry in ${retryAfterSeconds} s`
}
