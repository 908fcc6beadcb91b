/*
 * Reference parser for the text returned by GET /api/v1/callbacks/{codes} and GET /api/v1/rpc/{codes}.
 * Game-server authors can port it line by line; it is strict, so anything it accepts is exactly what the service sends.
 *
 * Grammar (ABNF-like). Every line ends with LF; there is no CR, no blank line and nothing between blocks.
 *
 *   callbacks      = *callback-block
 *   callback-block = normal-block / status-block
 *   normal-block   = "{" code ";" LF  text ";" LF  ( "No activity detected;" LF / 1*group )  "}" LF
 *   status-block   = "{" code ":" LF  [ text ";" LF ]  DQUOTE text DQUOTE ";" LF  "}" LF
 *
 *   rpc            = *rpc-block
 *   rpc-block      = "{" code ";" LF  *group  "}" LF
 *
 *   group          = *( text "," LF )  text ";" LF    ; one activity; only its last line ends with ";"
 *   code           = 4( %x41-5A / %x30-39 )           ; A-Z and 0-9
 *   text           = 1*safe-char                      ; may contain "," and may itself end with ","
 *   safe-char      = any character except  { } ; "  control characters, U+2028 and U+2029
 *
 * Reading it:
 *   - The marker right after the code says what follows: ";" a normal block, ":" a status block.
 *   - In a normal block the first line is the linked game-platform username.
 *   - In a status block the optional first line is the username ("(unlinked)" when no account is known) and the
 *     quoted line is the message, for example "Detection Paused" or "Code not found".
 *   - A line's meaning comes from its last character only: "," continues the activity, ";" ends it. Text never
 *     contains ";", "{", "}" or '"', so the last character is unambiguous even when the text ends with ",".
 *   - An rpc block never has a username or message; an empty rpc block means "nothing to show" for any reason.
 *
 * Activity groups come back as their lines without the trailing "," or ";", for example
 *   ["Listening to Spotify", "Blinding Lights", "The Weeknd"]  or  ["Playing", "Minecraft"].
 */
import { CODE_FORMAT } from '../../codes/model/codes.js'

/** One activity of a block: its line texts without their trailing `,` or `;`. */
export type ActivityGroup = { lines: string[] }

/** One parsed callbacks block: `;` with a username and activities, or `:` with an optional username and a message. */
export type CallbackBlock =
  | { code: string; marker: ';'; username: string; activities: ActivityGroup[] } // activities [] when "No activity detected"
  | { code: string; marker: ':'; username: string | null; message: string } // message without quotes

/** One parsed rpc block: the code and its activities ([] for an empty block). */
export type RpcBlock = { code: string; activities: ActivityGroup[] }

/** Every block of a response, or the first deviation from the grammar with its 1-based line number. */
export type ParseResult<T> = { ok: true; blocks: T[] } | { ok: false; line: number; error: string }

const HEADER = new RegExp(`^\\{(${CODE_FORMAT})([;:])$`)
const UNSAFE_CHAR = /[{};"\u0000-\u001F\u007F-\u009F\u2028\u2029]/
const MESSAGE_LINE = /^"([^"]*)";$/
const NO_ACTIVITY_LINE = 'No activity detected;'
const UNLINKED_USERNAME = '(unlinked)'
const CLOSE = '}'

/** A grammar deviation: thrown by the nested readers so they stay short, and turned into a value by parseAll. */
class ParseError extends Error {
  constructor(
    readonly line: number,
    readonly error: string,
  ) {
    super(`line ${line}: ${error}`)
  }
}

/** The response's lines with a cursor; running out inside a block is itself a deviation. */
class Lines {
  private index = 0

  constructor(private readonly lines: readonly string[]) {}

  get done(): boolean {
    return this.index >= this.lines.length
  }

  /** 1-based number of the line `next` would return. */
  get number(): number {
    return this.index + 1
  }

  peek(openedAt: number): string {
    const line = this.lines[this.index]
    if (line === undefined) {
      throw new ParseError(this.number, `unexpected end of input: the block opened on line ${openedAt} is not closed`)
    }
    return line
  }

  next(openedAt: number): string {
    const line = this.peek(openedAt)
    this.index++
    return line
  }
}

function splitLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  // Text that ends with LF leaves one empty string after the last split; anything else is a cut-off line.
  if (lines.pop() !== '') {
    throw new ParseError(lines.length + 1, 'the last line does not end with a newline (truncated response?)')
  }
  const cr = lines.findIndex((line) => line.includes('\r'))
  if (cr !== -1) throw new ParseError(cr + 1, 'carriage return found: lines end with \\n only')
  return lines
}

function checkText(text: string, line: number, what: string): string {
  if (text === '') throw new ParseError(line, `empty ${what}`)
  if (UNSAFE_CHAR.test(text)) throw new ParseError(line, `${what} contains a character that text never contains`)
  return text
}

function readHeader(lines: Lines): { code: string; marker: ';' | ':'; openedAt: number } {
  const openedAt = lines.number
  const match = HEADER.exec(lines.next(openedAt))
  if (match === null) {
    throw new ParseError(openedAt, 'expected a block header: { then a 4-character code of A-Z 0-9, then ; or :')
  }
  return { code: match[1] ?? '', marker: match[2] === ':' ? ':' : ';', openedAt }
}

function readClose(lines: Lines, code: string, openedAt: number): void {
  const number = lines.number
  if (lines.next(openedAt) !== CLOSE) throw new ParseError(number, `expected } to close block {${code}`)
}

function readUsername(lines: Lines, openedAt: number): string {
  const number = lines.number
  const line = lines.next(openedAt)
  if (line === CLOSE) throw new ParseError(number, 'expected the username line before }')
  if (!line.endsWith(';')) throw new ParseError(number, 'username line must end with ;')
  return checkText(line.slice(0, -1), number, 'username')
}

function readGroups(lines: Lines, openedAt: number): ActivityGroup[] {
  const groups: ActivityGroup[] = []
  let open: string[] = []
  while (lines.peek(openedAt) !== CLOSE) {
    const number = lines.number
    const line = lines.next(openedAt)
    const end = line.at(-1)
    if (end !== ',' && end !== ';') throw new ParseError(number, 'activity line must end with , or ;')
    open.push(checkText(line.slice(0, -1), number, 'activity line'))
    if (end === ';') {
      groups.push({ lines: open })
      open = []
    }
  }
  if (open.length > 0) {
    throw new ParseError(lines.number, 'block closed inside an activity: the line before ends with , instead of ;')
  }
  return groups
}

function readMessage(lines: Lines, openedAt: number): string {
  const number = lines.number
  const match = MESSAGE_LINE.exec(lines.next(openedAt))
  if (match === null) throw new ParseError(number, 'expected a quoted message line: "message";')
  return checkText(match[1] ?? '', number, 'message')
}

function readCallbackBlock(lines: Lines): CallbackBlock {
  const { code, marker, openedAt } = readHeader(lines)
  if (marker === ';') {
    const username = readUsername(lines, openedAt)
    if (lines.peek(openedAt) === NO_ACTIVITY_LINE) {
      lines.next(openedAt)
      readClose(lines, code, openedAt)
      return { code, marker, username, activities: [] }
    }
    if (lines.peek(openedAt) === CLOSE) {
      throw new ParseError(lines.number, `expected activity lines or "${NO_ACTIVITY_LINE}" in block {${code}`)
    }
    const activities = readGroups(lines, openedAt)
    readClose(lines, code, openedAt)
    return { code, marker, username, activities }
  }
  let username: string | null = null
  if (lines.peek(openedAt) === CLOSE) throw new ParseError(lines.number, 'expected a quoted message line before }')
  if (!lines.peek(openedAt).startsWith('"')) {
    const text = readUsername(lines, openedAt)
    username = text === UNLINKED_USERNAME ? null : text
  }
  const message = readMessage(lines, openedAt)
  readClose(lines, code, openedAt)
  return { code, marker, username, message }
}

function readRpcBlock(lines: Lines): RpcBlock {
  const { code, marker, openedAt } = readHeader(lines)
  if (marker !== ';') throw new ParseError(openedAt, 'rpc blocks always use ; after the code')
  const activities = readGroups(lines, openedAt)
  readClose(lines, code, openedAt)
  return { code, activities }
}

function parseAll<T>(text: string, readBlock: (lines: Lines) => T): ParseResult<T> {
  try {
    const lines = new Lines(splitLines(text))
    const blocks: T[] = []
    while (!lines.done) blocks.push(readBlock(lines))
    return { ok: true, blocks }
  } catch (error) {
    if (error instanceof ParseError) return { ok: false, line: error.line, error: error.error }
    throw error
  }
}

/** Parses a callbacks response into its blocks, or reports the first line that breaks the grammar. */
export function parseCallbacks(text: string): ParseResult<CallbackBlock> {
  return parseAll(text, readCallbackBlock)
}

/** Parses an rpc response into its blocks, or reports the first line that breaks the grammar. */
export function parseRpc(text: string): ParseResult<RpcBlock> {
  return parseAll(text, readRpcBlock)
}
