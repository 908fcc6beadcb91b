/**
 * What a host scenario is and what it reports: pure types and the small formatting the scenarios share (their medians
 * come from tools/harness/stats.ts).
 */

/** One figure of a scenario, as it appears in HOSTS.md. */
export interface Figure {
  label: string
  value: string
}

/** What one scenario found. */
export interface ScenarioOutcome {
  name: string
  /** One line: what was done. */
  title: string
  figures: Figure[]
  /** Every expectation that did not hold; empty when the scenario passed. */
  problems: string[]
  /** The error that stopped the scenario early, if any. */
  error?: string
}

/** True when the scenario ran to its end and every expectation held. */
export function scenarioPassed(outcome: ScenarioOutcome): boolean {
  return outcome.error === undefined && outcome.problems.length === 0
}

/** Seconds with one decimal (`12.3 s`), or `-` for NaN/null. */
export function seconds(ms: number | null): string {
  return ms === null || Number.isNaN(ms) ? '-' : `${(ms / 1000).toFixed(1)} s`
}

/** Milliseconds rounded (`87 ms`), or `-`. */
export function millis(ms: number | null): string {
  return ms === null || Number.isNaN(ms) ? '-' : `${Math.round(ms)} ms`
}

/** How many times each value occurs, in order of first appearance. */
export function tally(values: Iterable<string>): Map<string, number> {
  const out = new Map<string, number>()
  for (const v of values) out.set(v, (out.get(v) ?? 0) + 1)
  return out
}

/** A count map rendered as `a 3, b 1` (or `none`). */
export function counts(map: ReadonlyMap<string, number> | Record<string, number>): string {
  const entries = map instanceof Map ? [...map.entries()] : Object.entries(map)
  return entries.length === 0 ? 'none' : entries.sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ')
}
