/**
 * The one argument parser of every `presence-link` command and of the sandbox entry: node:util `parseArgs` in strict
 * mode, driven by a declared spec, with errors worded for people and usage text rendered from the same spec.
 * Pure: no I/O, no process state.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'

/** One `--flag` of a command. */
export interface FlagSpec {
  /** `string` takes a value; `integer` takes a whole number; `boolean` is a switch. */
  type: 'string' | 'integer' | 'boolean'
  /** Placeholder for the value in usage text (`NAME`); ignored for a switch. */
  value?: string
  /** One line for --help. */
  summary: string
  /**
   * Shown without brackets in usage. Not enforced here: each command refuses a missing value itself, with its own
   * message and exit 64, as it did before this parser existed.
   */
  required?: boolean
  /** Bounds of an integer flag, inclusive. */
  min?: number
  max?: number
  /** Value when the flag is absent. */
  default?: string | number | boolean
}

/** One positional argument of a command. */
export interface PositionalSpec {
  /** Placeholder in usage text (`CODE`). */
  name: string
  /** One line for --help. */
  summary: string
  /** Shown in brackets in usage. */
  optional?: boolean
  /** Takes any number of values (only the last positional). */
  repeats?: boolean
}

/** What a command accepts besides `--help`. */
export interface ArgsSpec {
  positionals?: readonly PositionalSpec[]
  flags?: Readonly<Record<string, FlagSpec>>
}

type FlagValue<F extends FlagSpec> = F['type'] extends 'integer' ? number : F['type'] extends 'boolean' ? boolean : string

type FlagValues<F> = F extends Readonly<Record<string, FlagSpec>>
  ? { -readonly [K in keyof F]: F[K] extends { default: string | number | boolean } ? FlagValue<F[K]> : FlagValue<F[K]> | undefined }
  : Record<string, never>

/** A command line that parsed: positionals in order, flags typed by their spec. */
export interface ParsedArgs<S extends ArgsSpec = ArgsSpec> {
  positionals: string[]
  flags: FlagValues<S['flags']>
}

/** What parsing a command line gave: the arguments, a request for help, or why it is refused. */
export type ParseOutcome<S extends ArgsSpec = ArgsSpec> =
  | { kind: 'ok'; args: ParsedArgs<S> }
  | { kind: 'help' }
  | { kind: 'error'; message: string }

/** `--help` and `-h`, which every command takes. */
const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const

const WHOLE_NUMBER = /^\d{1,15}$/

/** Parses `argv` (the words after the command's name) against `spec`. */
export function parseArgv<const S extends ArgsSpec>(spec: S, argv: readonly string[]): ParseOutcome<S> {
  const options: NonNullable<ParseArgsConfig['options']> = { ...HELP_OPTION }
  for (const [name, flag] of Object.entries(spec.flags ?? {})) options[name] = { type: flag.type === 'boolean' ? 'boolean' : 'string' }
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true })
  } catch (err) {
    // Help wins over a broken line: `keys create --name --help` shows the help.
    if (asksForHelp(argv)) return { kind: 'help' }
    return { kind: 'error', message: explainParseError(options, argv) ?? (err as Error).message.split('\n')[0]! }
  }
  if (parsed.values.help === true) return { kind: 'help' }

  const declared = spec.positionals ?? []
  const repeats = declared.at(-1)?.repeats === true
  if (!repeats && parsed.positionals.length > declared.length) {
    return { kind: 'error', message: `unexpected argument ${parsed.positionals[declared.length]!}` }
  }

  const flags: Record<string, string | number | boolean | undefined> = {}
  for (const [name, flag] of Object.entries(spec.flags ?? {})) {
    const raw = parsed.values[name]
    if (raw === undefined) {
      flags[name] = flag.default
    } else if (flag.type === 'integer') {
      const n = typeof raw === 'string' && WHOLE_NUMBER.test(raw) ? Number(raw) : Number.NaN
      if (Number.isNaN(n) || n < (flag.min ?? 0) || n > (flag.max ?? Number.MAX_SAFE_INTEGER)) {
        return { kind: 'error', message: `--${name} needs a whole number${describeBounds(flag)}, not ${JSON.stringify(raw)}` }
      }
      flags[name] = n
    } else {
      flags[name] = raw as string | boolean
    }
  }
  return { kind: 'ok', args: { positionals: parsed.positionals, flags: flags as FlagValues<S['flags']> } }
}

function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--')
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h')
}

function describeBounds(flag: FlagSpec): string {
  if (flag.max !== undefined) return ` from ${flag.min ?? 0} to ${flag.max}`
  return flag.min === undefined ? '' : ` of at least ${flag.min}`
}

/**
 * Says why strict parsing refused `argv`, in our words; undefined when it cannot tell (the caller then shows node's).
 * A value that starts with `-` is not taken as a value (`--name --json` is a missing value, not a key named `--json`).
 */
function explainParseError(options: NonNullable<ParseArgsConfig['options']>, argv: readonly string[]): string | undefined {
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true })
  for (const token of tokens) {
    if (token.kind !== 'option') continue
    const option = options[token.name]
    if (option === undefined) return `unknown flag ${token.rawName}`
    if (option.type === 'boolean' && token.value !== undefined) return `${token.rawName} takes no value`
    if (option.type !== 'string') continue
    if (token.value === undefined) return `${token.rawName} needs a value`
    if (!token.inlineValue && token.value.startsWith('-')) return `${token.rawName} needs a value, and ${token.value} is not one (write ${token.rawName}=${token.value} if it is)`
  }
  return undefined
}

/** The arguments part of a usage line: `CATEGORY TARGET`, `--name NAME`, `[--port N]`. */
export function formatSynopsis(spec: ArgsSpec): string {
  const words: string[] = []
  for (const p of spec.positionals ?? []) {
    const word = p.repeats === true ? `${p.name}...` : p.name
    words.push(p.optional === true ? `[${word}]` : word)
  }
  for (const [name, flag] of Object.entries(spec.flags ?? {})) {
    const word = flag.type === 'boolean' ? `--${name}` : `--${name} ${flag.value ?? 'VALUE'}`
    words.push(flag.required === true ? word : `[${word}]`)
  }
  return words.join(' ')
}

/** One line per argument and flag (plus `-h, --help`), aligned, for --help. */
export function formatArgumentLines(spec: ArgsSpec): string[] {
  const rows: Array<[string, string]> = []
  for (const p of spec.positionals ?? []) rows.push([p.repeats === true ? `${p.name}...` : p.name, p.summary])
  for (const [name, flag] of Object.entries(spec.flags ?? {})) {
    const left = flag.type === 'boolean' ? `--${name}` : `--${name} ${flag.value ?? 'VALUE'}`
    const notes = [flag.required === true ? 'required' : '', flag.default === undefined ? '' : `default ${String(flag.default)}`].filter((n) => n !== '')
    rows.push([left, notes.length === 0 ? flag.summary : `${flag.summary} (${notes.join(', ')})`])
  }
  rows.push(['-h, --help', 'print this help'])
  return alignRows(rows)
}

/** Two-column rows indented by two spaces; a left column wider than `maxWidth` puts its text on the next line. */
export function alignRows(rows: ReadonlyArray<readonly [string, string]>, maxWidth = 40): string[] {
  const width = Math.min(maxWidth, Math.max(0, ...rows.map(([left]) => left.length)))
  return rows.flatMap(([left, right]) =>
    left.length > width ? [`  ${left}`, `  ${' '.repeat(width)}  ${right}`] : [`  ${left.padEnd(width)}  ${right}`.trimEnd()],
  )
}
