/**
 * The pause before a process that died is started again (serve's parts, the front's cluster workers), pure: 0.5 s,
 * doubling with each step, capped at 30 s, so something that keeps dying is restarted ever more slowly instead of in
 * a tight loop. Each caller counts its own steps (see there).
 */

const FIRST_MS = 500
const CAP_MS = 30_000
// 500 ms doubled 6 times is 32 s, already over the cap: more doublings cannot change the result.
const MAX_DOUBLINGS = 6

/** The restart pause after `doublings` doublings of 0.5 s (below 0 counts as 0), at most 30 s. */
export function restartDelayMs(doublings: number): number {
  return Math.min(CAP_MS, FIRST_MS * 2 ** Math.min(Math.max(doublings, 0), MAX_DOUBLINGS))
}
