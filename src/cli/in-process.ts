/**
 * Administration command groups run inside an already started process (tests, and whatever embeds the CLI): each
 * function is `presence-link GROUP ARGS` through the same dispatch as the command line, without a process of its own.
 */
import type { ProcessContext } from '../runtime/process-context.js'
import type { CommandOutput } from './command.js'
import { runCommand } from './dispatch.js'

/** `presence-link keys ARGS` in this process. */
export const keysCommand = inProcess('keys')
/** `presence-link codes ARGS` in this process. */
export const codesCommand = inProcess('codes')
/** `presence-link guilds ARGS` in this process. */
export const guildsCommand = inProcess('guilds')
/** `presence-link destinations ARGS` in this process. */
export const destinationsCommand = inProcess('destinations')
/** `presence-link logs ARGS` in this process. */
export const logsCommand = inProcess('logs')
/** `presence-link watchlist ARGS` in this process. */
export const watchlistCommand = inProcess('watchlist')
/** `presence-link infractions ARGS` in this process. */
export const infractionsCommand = inProcess('infractions')
/** `presence-link jobs ARGS` in this process. */
export const jobsCommand = inProcess('jobs')

/** The command group `group`, run in this process with the arguments that follow it. */
export function inProcess(group: string): (ctx: ProcessContext, args: readonly string[]) => Promise<CommandOutput> {
  return (ctx, args) => runCommand(ctx, [group, ...args])
}
