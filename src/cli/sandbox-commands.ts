/**
 * `presence-link sandbox reset`: removes what a run against the local sandbox left in MySQL (its log destinations;
 * the entries waiting for them are set aside). Without --yes it only lists what it would remove. The last line is
 * the result.
 */
import { findSandboxLeftovers, resetSandbox, type SandboxResetDeps } from '../delivery/sandbox-reset.js'
import { createDestinationRows } from '../mysql/destination-rows.js'
import { countDeliveryStates } from '../mysql/log-entry-rows.js'
import type { ProcessContext } from '../runtime/process-context.js'
import { openDatabase } from '../runtime/storage.js'
import type { CommandOutput } from './command.js'

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** `presence-link sandbox reset [--yes]`. */
export async function sandboxResetCommand(ctx: ProcessContext, opts: { yes: boolean }): Promise<CommandOutput> {
  const db = await openDatabase(ctx, 2)
  const deps: SandboxResetDeps = {
    destinations: createDestinationRows(db, ctx.config.discordApi),
    countPending: async (category) => (await countDeliveryStates(db, category)).pending,
  }
  const leftovers = await findSandboxLeftovers(deps)
  if (leftovers.length === 0) return { lines: ["nothing to reset: no log destination is the sandbox's"], exitCode: 0 }
  const lines = leftovers.map((l) => `${l.category}\t${l.target}\tset by ${l.setBy}\tpending ${l.pending}`)
  const pending = leftovers.reduce((n, l) => n + l.pending, 0)
  if (!opts.yes) {
    lines.push(
      `would remove ${plural(leftovers.length, "sandbox destination")} and set ${plural(pending, 'pending entry', 'pending entries')} aside; ` +
        'run `presence-link sandbox reset --yes` to do it',
    )
    return { lines, exitCode: 0 }
  }
  const removed = await resetSandbox(deps)
  ctx.log.info({ categories: removed.categories, setAside: removed.setAside }, 'sandbox destinations removed')
  lines.push(
    `removed ${plural(removed.categories.length, "sandbox destination")} (${removed.categories.join(', ')}); ` +
      `${plural(removed.setAside, 'entry', 'entries')} that waited for them set aside: stored, not delivered (logs replay sends them again)`,
  )
  return { lines, exitCode: 0 }
}
