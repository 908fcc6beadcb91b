/**
 * Turns a `presence-link` command line into what to do, from the command table alone: print help or the version,
 * refuse the line (with the command's usage), hand the process to an entry file, or run an administration command.
 */
import type { ProcessContext } from '../runtime/process-context.js'
import { alignRows, formatArgumentLines, formatSynopsis, parseArgv, type ArgsSpec, type ParsedArgs } from './args.js'
import { EXIT_BAD_COMMAND_LINE, EXIT_BAD_USAGE, type AdminCommand, type Command, type CommandGroup, type CommandOutput, type ProcessCommand } from './command.js'
import { COMMANDS } from './command-table.js'

/** What a command line asks for. */
export type Resolution =
  | { kind: 'print'; output: CommandOutput }
  | { kind: 'version' }
  | { kind: 'process'; command: ProcessCommand; argv: string[]; args: ParsedArgs }
  | { kind: 'admin'; command: AdminCommand; path: string; args: ParsedArgs }

const PROGRAM = 'presence-link'
const TAGLINE = `${PROGRAM}: link Discord users to Roblox accounts, serve their live activity, keep logs`

/** Resolves the words after `presence-link`. */
export function resolveCommand(argv: readonly string[], commands: readonly Command[] = COMMANDS): Resolution {
  const [name, ...rest] = argv
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') return print(formatTopHelp(commands))
  if (name === '--version') return { kind: 'version' }
  const command = commands.find((c) => c.name === name)
  if (command === undefined) {
    const what = name.startsWith('-') ? `unknown flag ${name}` : `unknown command ${name}`
    return fail(EXIT_BAD_COMMAND_LINE, what, [`run \`${PROGRAM} --help\` for the commands`])
  }
  if (command.kind === 'group') return resolveSubcommand(command, rest)
  if (command.kind === 'process' && command.commands?.some((c) => c.name === rest[0]) === true) {
    return resolveSubcommand({ kind: 'group', name: command.name, summary: command.summary, commands: command.commands }, rest)
  }
  const parsed = parseCommandLine(command.name, command, rest)
  if (parsed.kind !== 'ok') return { kind: 'print', output: parsed.output }
  if (command.kind === 'process') return { kind: 'process', command, argv: rest, args: parsed.args }
  return { kind: 'admin', command, path: command.name, args: parsed.args }
}

function resolveSubcommand(group: CommandGroup, argv: readonly string[]): Resolution {
  const [name, ...rest] = argv
  if (name === '--help' || name === '-h') return print(formatGroupHelp(group))
  const command = group.commands.find((c) => c.name === name)
  if (command === undefined) return fail(EXIT_BAD_COMMAND_LINE, `${group.name} takes ${describeSubcommands(group)}`, [`run \`${PROGRAM} ${group.name} --help\` for details`])
  const path = `${group.name} ${command.name}`
  const parsed = parseCommandLine(path, command, rest)
  if (parsed.kind !== 'ok') return { kind: 'print', output: parsed.output }
  return { kind: 'admin', command, path, args: parsed.args }
}

/**
 * Parses one command's arguments; on `--help` or a refused line, gives what to print instead (usage errors exit 2).
 * `path` is the command as typed after `presence-link` (`keys create`).
 */
export function parseCommandLine<const S extends ArgsSpec>(
  path: string,
  command: { summary: string; args: S },
  argv: readonly string[],
): { kind: 'ok'; args: ParsedArgs<S> } | { kind: 'print'; output: CommandOutput } {
  const outcome = parseArgv(command.args, argv)
  if (outcome.kind === 'ok') return outcome
  if (outcome.kind === 'help') return { kind: 'print', output: { lines: formatCommandHelp(path, command), exitCode: 0 } }
  return { kind: 'print', output: { lines: [`error: ${outcome.message}`, ...usageHint(path, command.args)], exitCode: EXIT_BAD_COMMAND_LINE } }
}

/**
 * Runs `presence-link ARGV` in this process against `ctx` (administration commands only) and returns what it would
 * print. A refusal by the command itself (exit 64) gets the command's usage below its reason.
 */
export async function runCommand(ctx: ProcessContext, argv: readonly string[]): Promise<CommandOutput> {
  const resolved = resolveCommand(argv)
  if (resolved.kind === 'print') return resolved.output
  if (resolved.kind !== 'admin') throw new Error(`${argv[0] ?? ''} does not run inside another process`)
  return runResolved(ctx, resolved)
}

/** Runs a resolved administration command. */
export async function runResolved(ctx: ProcessContext, resolved: Extract<Resolution, { kind: 'admin' }>): Promise<CommandOutput> {
  const out = await resolved.command.run(ctx, resolved.args)
  if (out.exitCode !== EXIT_BAD_USAGE) return out
  return { lines: [...out.lines, ...usageHint(resolved.path, resolved.command.args)], exitCode: out.exitCode }
}

function print(lines: string[]): Resolution {
  return { kind: 'print', output: { lines, exitCode: 0 } }
}

function fail(exitCode: number, message: string, hint: string[]): Resolution {
  return { kind: 'print', output: { lines: [`error: ${message}`, ...hint], exitCode } }
}

function usageLine(path: string, args: ArgsSpec): string {
  return `usage: ${PROGRAM} ${path}${withSpace(formatSynopsis(args))}`
}

function usageHint(path: string, args: ArgsSpec): string[] {
  return [usageLine(path, args), `run \`${PROGRAM} ${path} --help\` for details`]
}

function withSpace(text: string): string {
  return text === '' ? '' : ` ${text}`
}

/** `create --name NAME, list, or revoke NAME`. */
function describeSubcommands(group: CommandGroup): string {
  const each = group.commands.map((c) => `${c.name}${withSpace(formatSynopsis(c.args))}`)
  return each.length < 2 ? each.join('') : `${each.slice(0, -1).join(', ')}, or ${each.at(-1)!}`
}

/** `--help` of one command. */
function formatCommandHelp(path: string, command: { summary: string; args: ArgsSpec }): string[] {
  return [usageLine(path, command.args), '', command.summary, '', 'arguments:', ...formatArgumentLines(command.args)]
}

/** `--help` of a group: its subcommands, one line each. */
function formatGroupHelp(group: CommandGroup): string[] {
  const rows = group.commands.map((c) => [`${c.name}${withSpace(formatSynopsis(c.args))}`, c.summary] as const)
  return [
    `usage: ${PROGRAM} ${group.name} SUBCOMMAND [ARGUMENTS]`,
    '',
    group.summary,
    '',
    'subcommands:',
    ...alignRows(rows),
    '',
    `run \`${PROGRAM} ${group.name} SUBCOMMAND --help\` for one subcommand's arguments`,
  ]
}

/** `presence-link --help`: every command, one line each. */
function formatTopHelp(commands: readonly Command[]): string[] {
  const processes = commands.filter((c) => c.kind === 'process').map((c) => [`${c.name}${withSpace(formatSynopsis(c.args))}`, c.summary] as const)
  const administration = commands.flatMap((c) =>
    c.kind === 'process'
      ? (c.commands ?? []).map((s) => [`${c.name} ${s.name}${withSpace(formatSynopsis(s.args))}`, s.summary] as const)
      : c.kind === 'group'
        ? c.commands.map((s) => [`${c.name} ${s.name}${withSpace(formatSynopsis(s.args))}`, s.summary] as const)
        : [[`${c.name}${withSpace(formatSynopsis(c.args))}`, c.summary] as const],
  )
  // One column width for both lists, so the summaries line up down the whole help.
  const width = Math.max(...[...processes, ...administration].map(([left]) => left.length).filter((n) => n <= 48))
  return [
    TAGLINE,
    '',
    `usage: ${PROGRAM} COMMAND [ARGUMENTS]`,
    `       ${PROGRAM} COMMAND --help     one command's arguments`,
    `       ${PROGRAM} --version`,
    '',
    'Processes:',
    ...alignRows(processes, width),
    '',
    'Administration (each prints its result as the last line; errors go to stderr):',
    ...alignRows(administration, width),
  ]
}
