/**
 * `presence-link logs search`: stored log entries by category, event type, player, code and time, newest first, as
 * a table (the result line last) or as one line of JSON; each page on an index (src/mysql/log-search-rows.ts).
 * Arguments are read by cli/model/log-search-args.ts and printed by cli/model/log-search-output.ts.
 */
import { readSearchArguments, type LogSearchArguments } from './model/log-search-args.js'
import { formatJson, formatTable } from './model/log-search-output.js'
import { cursorOf, searchLogEntries, SearchTimeoutError } from '../mysql/log-search-rows.js'
import type { ProcessContext } from '../runtime/process-context.js'
import { openDatabase } from '../runtime/storage.js'
import { usage, type CommandOutput } from './command.js'

/** The flags of `logs search`, as typed. */
export interface LogSearchOptions extends LogSearchArguments {
  json: boolean
  /** The terminal's width, or null when the output is not a terminal (the description then has a fixed width). */
  terminalWidth: number | null
}

function fail(message: string): CommandOutput {
  return { lines: [`error: ${message}`], exitCode: 1 }
}

/** `presence-link logs search [filters] [--before ID] [--limit N] [--json]`. */
export async function searchLogsCommand(ctx: ProcessContext, opts: LogSearchOptions): Promise<CommandOutput> {
  const read = readSearchArguments(opts, new Date())
  if (!read.ok) return usage(read.message)
  const db = await openDatabase(ctx, 1)
  const filter = read.filter
  if (read.beforeId !== null) {
    const cursor = await cursorOf(db, read.beforeId)
    if (cursor === null) return fail(`no log entry ${read.beforeId}: it was pruned or never stored (page by time with --until instead)`)
    filter.before = cursor
  }
  try {
    const page = await searchLogEntries(db, filter)
    return { lines: opts.json ? [formatJson(page)] : formatTable(page, opts.terminalWidth), exitCode: 0 }
  } catch (err) {
    if (!(err instanceof SearchTimeoutError)) throw err
    return fail(`${err.message}: narrow it with --since/--until, or a filter that matches fewer entries (--code, --roblox-user, --username, --event-type)`)
  }
}

/** The width of the terminal this process prints to, or null when stdout is not a terminal. */
export function stdoutWidth(): number | null {
  return process.stdout.isTTY === true && process.stdout.columns > 0 ? process.stdout.columns : null
}
