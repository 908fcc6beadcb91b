/** A drill's result row, as RELIABILITY.md prints it, and the pass rule. */

/** What one drill measured. */
export interface DrillOutcome {
  /** Drill name (as given to `--only`). */
  name: string
  /** The fault, in a few words. */
  fault: string
  /** What the counts are of: `log events`, `binds`, `delivered entries`. */
  counted: string
  accepted: number
  stored: number
  lost: number
  duplicated: number
  /** Client-visible failures, already formatted (`log 503 ×12; bind reset ×2`). */
  clientErrors: string
  /** Seconds from the end of the fault until the service was whole again; null when it never was. */
  recoverySeconds: number | null
  /** What else fails the drill: processes left running after a stop, crashed processes, entries out of order. */
  problems: string[]
  /** Anything else seen (front worker deaths, order breaks, replacement times). */
  notes: string[]
  /** Set when the drill itself could not run to the end. */
  error?: string
}

/** A drill passes with nothing lost, nothing duplicated, no other problem, a recovery and no error of its own. */
export function drillPassed(o: DrillOutcome): boolean {
  return o.error === undefined && o.lost === 0 && o.duplicated === 0 && o.problems.length === 0 && o.recoverySeconds !== null
}
