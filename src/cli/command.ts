/** The shapes of the `presence-link` command table (src/cli/command-table.ts) and what a command prints. */
import type { ProcessContext } from '../runtime/process-context.js'
import type { ArgsSpec, ParsedArgs } from './args.js'

/** Output of an administration command: lines to print and the exit status; the last line is the result. */
export interface CommandOutput {
  lines: string[]
  exitCode: number
}

/** Exit status of a command line that does not parse (unknown flag, missing value, bad number, extra argument). */
export const EXIT_BAD_COMMAND_LINE = 2

/** Exit status of a command line that parses but that the command refuses (a bad code, a missing NAME). */
export const EXIT_BAD_USAGE = 64

/** A usage error found by a command: exits 64; the dispatcher adds the command's usage below it. */
export function usage(message: string): CommandOutput {
  return { lines: [`error: ${message}`], exitCode: EXIT_BAD_USAGE }
}

/** A command that starts a long-running process: its entry file takes over the process. */
export interface ProcessCommand {
  kind: 'process'
  name: string
  summary: string
  args: ArgsSpec
  /** The entry module that runs the process. */
  entry: URL
  /** Administration subcommands under the same word (`sandbox reset`): a first argument naming one runs it instead. */
  commands?: readonly AdminCommand[]
}

/** A command that does one thing against MySQL/Redis, prints its result and exits. */
export interface AdminCommand<S extends ArgsSpec = ArgsSpec> {
  kind: 'admin'
  name: string
  summary: string
  args: S
  // Method syntax on purpose: a handler for narrower parsed args still fits the table's erased type.
  run(ctx: ProcessContext, args: ParsedArgs<S>): Promise<CommandOutput>
}

/** A command word that only groups subcommands (`keys`, `codes`, ...). */
export interface CommandGroup {
  kind: 'group'
  name: string
  summary: string
  commands: readonly AdminCommand[]
}

/** One entry of the top-level table. */
export type Command = ProcessCommand | AdminCommand | CommandGroup

/** Declares an administration command; `run` gets the flags typed by `args`. */
export function adminCommand<const S extends ArgsSpec>(command: Omit<AdminCommand<S>, 'kind'>): AdminCommand {
  return { kind: 'admin', ...command } as AdminCommand
}
