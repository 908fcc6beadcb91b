/**
 * Leaving the sandbox (issue 32): what a run against the local sandbox left in MySQL, and its removal. A delivery
 * consumer running against the sandbox marks the destinations it seeds (the sandbox's channels, which serve hands it
 * in LOG_DESTINATION_*); a consumer that does not run against it refuses them. `presence-link sandbox reset` removes
 * them, and the entries still pending for them are set aside (stored, state `none`: `logs replay` sends them again).
 * The guild whitelist and staff role serve gives its parts in sandbox mode live in their environment only; the
 * gateway's published whitelist (`guilds list`) is replaced by the next gateway's start.
 */
import { describeTarget } from './model/destination.js'
import type { LogCategoryName } from '../queue/model/log-categories.js'
import type { DestinationRows, SandboxDestinationsRemoved } from '../mysql/destination-rows.js'

/** One destination the sandbox left: its category, where it points, and how many entries wait for it. */
export interface SandboxLeftover {
  category: LogCategoryName
  /** The target as `destinations list` shows it (a webhook's token cut short). */
  target: string
  setBy: string
  pending: number
}

/** What reading and removing the sandbox's leftovers needs. */
export interface SandboxResetDeps {
  destinations: Pick<DestinationRows, 'list' | 'removeSandbox'>
  /** Entries of a category still waiting for delivery. */
  countPending(category: LogCategoryName): Promise<number>
}

/** The destinations the sandbox left, in category order, with the entries waiting for each. */
export async function findSandboxLeftovers(deps: SandboxResetDeps): Promise<SandboxLeftover[]> {
  const leftovers: SandboxLeftover[] = []
  for (const d of await deps.destinations.list()) {
    if (!d.sandbox) continue
    const target = d.target.ok ? describeTarget(d.target.target) : d.targetText
    leftovers.push({ category: d.category, target, setBy: d.setBy, pending: await deps.countPending(d.category) })
  }
  return leftovers
}

/** Removes the sandbox's destinations and sets the entries waiting for them aside. */
export function resetSandbox(deps: SandboxResetDeps): Promise<SandboxDestinationsRemoved> {
  return deps.destinations.removeSandbox()
}
