/**
 * The changes waiting to be published for one universe (pure): per code, its block as last rendered and when its
 * oldest unpublished change was written (the feed writer's clock, for the lag). A code changed again before it went
 * out is merged (its newer block replaces the older: servers only need the latest), which is what coalescing is.
 */
import type { ChangedBlock } from './push-message.js'

/** One code waiting to go out. */
export interface PendingChange {
  readonly block: string
  /** Writer's clock (epoch ms) of the oldest change not yet published. */
  readonly since: number
}

/** The pending changes of one universe. */
export interface PendingChanges {
  /** Records a change; true when it merged into one already pending (coalesced). */
  note(code: string, block: string, since: number): boolean
  /** Forgets codes no live server declares any more; how many were forgotten. */
  keepOnly(subscribed: ReadonlySet<string>): number
  /** Every pending change, oldest first. */
  list(): Array<ChangedBlock & { since: number }>
  /** Removes published codes. */
  settle(codes: readonly string[]): void
  readonly size: number
}

/** An empty set of pending changes. */
export function createPendingChanges(): PendingChanges {
  const pending = new Map<string, PendingChange>()
  return {
    note(code, block, since) {
      const known = pending.get(code)
      pending.set(code, { block, since: known === undefined ? since : Math.min(known.since, since) })
      return known !== undefined
    },
    keepOnly(subscribed) {
      let forgotten = 0
      for (const code of pending.keys()) {
        if (!subscribed.has(code)) {
          pending.delete(code)
          forgotten++
        }
      }
      return forgotten
    },
    list() {
      return [...pending].map(([code, p]) => ({ code, block: p.block, since: p.since })).sort((a, b) => a.since - b.since || (a.code < b.code ? -1 : 1))
    },
    settle(codes) {
      for (const code of codes) pending.delete(code)
    },
    get size() {
      return pending.size
    },
  }
}
