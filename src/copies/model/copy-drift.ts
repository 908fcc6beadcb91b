/**
 * Drift between MySQL and its Redis copies, pure: which rows' copies are missing or older than the row, which copy
 * entries MySQL does not have, and which holder entries disagree with the live codes. The reconciler
 * (copies/reconciler.ts) reads both sides and repairs what these return, compare-and-set.
 */

/** The Redis copies the reconciler keeps, as the `copy` label of its repair counter. */
export const COPIES = ['codes', 'holders', 'apikeys'] as const

/** One of the copies. */
export type CopyName = (typeof COPIES)[number]

/**
 * The rows whose copy is missing or at an older version (`stored[i]` is the version the copy of `rows[i]` holds,
 * undefined when missing or unreadable). A copy at a newer version than the row was written after the row was read:
 * not drift.
 */
export function outdatedRows<T extends { version: number }>(rows: readonly T[], stored: ReadonlyArray<number | undefined>): T[] {
  return rows.filter((row, i) => {
    const version = stored[i]
    return version === undefined || version < row.version
  })
}

/** The copy entries (by id) that MySQL does not have. */
export function extraEntries(ids: readonly string[], existing: ReadonlySet<string>): string[] {
  return ids.filter((id) => !existing.has(id))
}

/** A holder entry to repair: the code the user should hold, '' for none. */
export interface HolderRepair {
  userId: string
  code: string
}

/**
 * The holder entries of `users` that disagree with MySQL: `live` maps each user with a live code to it, `stored` each
 * user with a holder entry to its code.
 */
export function holderRepairs(users: Iterable<string>, live: ReadonlyMap<string, string>, stored: ReadonlyMap<string, string>): HolderRepair[] {
  const out: HolderRepair[] = []
  for (const userId of new Set(users)) {
    const code = live.get(userId) ?? ''
    if ((stored.get(userId) ?? '') !== code) out.push({ userId, code })
  }
  return out
}

/**
 * Where the next incremental pass starts reading changes (the database's clock): `overlapMs` before the start of the
 * last pass that completed, so a transaction that stamped its change before that start but committed after it is
 * still seen.
 */
export function changesSince(lastPassStart: Date, overlapMs: number): Date {
  return new Date(lastPassStart.getTime() - overlapMs)
}
