/**
 * What `presence-link logs search` prints, pure: a table of fixed columns (a description cut to the width it is
 * given, so one entry is one line) with the result line last, or one line of JSON: an array of the entries, every
 * stored field of each. Text from game servers
 * is shown escaped: a line break is `\n`, a tab `\t`, and any other control or bidirectional formatting character
 * `\u001b` style, so no entry can split a line, move the cursor or reorder what the terminal shows.
 */
import type { FoundLogEntry, SearchPage } from '../../mysql/model/log-search.js'

/** Characters shown escaped: C0 and C1 controls, line and paragraph separators, bidirectional formatting. */
const UNSAFE = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g

const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/** `\u001b` for ESC: a UTF-16 unit as JSON escapes it. */
function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
}

/** `text` on one line, every unsafe character escaped (a backslash itself is left as it is). */
export function escapeText(text: string): string {
  return text.replace(UNSAFE, (c) => SHORT_ESCAPES[c] ?? unicodeEscape(c))
}

const SEGMENTER = new Intl.Segmenter('en', { granularity: 'grapheme' })
const WIDE = /\p{Emoji_Presentation}|\uFE0F|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303F\uFF01-\uFF60\uFFE0-\uFFE6]/u
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\u200B-\u200D\uFE00-\uFE0F]+$/u

/** Columns a grapheme takes in a terminal: 2 for emoji and East Asian wide characters, 0 for marks alone, else 1. */
function graphemeWidth(g: string): number {
  if (ZERO_WIDTH.test(g)) return 0
  return WIDE.test(g) ? 2 : 1
}

/** Columns `text` takes in a terminal (approximately: the common wide ranges). */
export function displayWidth(text: string): number {
  let width = 0
  for (const { segment } of SEGMENTER.segment(text)) width += graphemeWidth(segment)
  return width
}

/** `text` cut to `width` columns at a grapheme boundary, ending in `…` when cut. */
export function fitWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text
  let out = ''
  let used = 0
  for (const { segment } of SEGMENTER.segment(text)) {
    const w = graphemeWidth(segment)
    if (used + w > width - 1) break
    out += segment
    used += w
  }
  return `${out}…`
}

/** `text` cut to `width` columns and padded to exactly that many. */
function cell(text: string, width: number): string {
  const fitted = fitWidth(text, width)
  return fitted + ' '.repeat(Math.max(0, width - displayWidth(fitted)))
}

/** Widths of the fixed columns of the table (ID and DESCRIPTION are sized per page). */
export const COLUMN_WIDTHS = { received: 24, category: 10, eventType: 20, player: 28, code: 4 } as const

/** Description width when the output is not a terminal. */
export const PIPED_DESCRIPTION_WIDTH = 120

/** Narrowest description shown, however narrow the terminal. */
const MIN_DESCRIPTION_WIDTH = 20

const GAP = '  '

/** The player column: `Builderman (156)`, `Builderman`, `(156)`, or `-`. */
function playerOf(e: FoundLogEntry): string {
  if (e.platformUsername === null) return e.platformUserId === null ? '-' : `(${e.platformUserId})`
  return e.platformUserId === null ? escapeText(e.platformUsername) : `${escapeText(e.platformUsername)} (${e.platformUserId})`
}

/**
 * The table of a page: a header, one line per entry, and the result last (`N entries, newest first`, with the
 * argument that shows the next page when there is one, or `no log entries match`). `terminalWidth` is the
 * terminal's columns (the description fills what is left), or null when the output is not a terminal.
 */
export function formatTable(page: SearchPage, terminalWidth: number | null): string[] {
  if (page.entries.length === 0) return ['no log entries match']
  const w = COLUMN_WIDTHS
  const idWidth = Math.max(2, ...page.entries.map((e) => e.id.length))
  const fixed = idWidth + w.received + w.category + w.eventType + w.player + w.code + GAP.length * 6
  const description = terminalWidth === null ? PIPED_DESCRIPTION_WIDTH : Math.max(MIN_DESCRIPTION_WIDTH, terminalWidth - fixed)
  const row = (id: string, received: string, category: string, eventType: string, player: string, code: string, text: string) =>
    [id.padStart(idWidth), cell(received, w.received), cell(category, w.category), cell(eventType, w.eventType), cell(player, w.player), cell(code, w.code), fitWidth(text, description)]
      .join(GAP)
      .trimEnd()
  const lines = [row('ID', 'RECEIVED (UTC)', 'CATEGORY', 'EVENT TYPE', 'PLAYER', 'CODE', 'DESCRIPTION')]
  for (const e of page.entries) {
    lines.push(row(e.id, e.receivedAt.toISOString(), e.category, escapeText(e.eventType), playerOf(e), e.code ?? '-', escapeText(e.description)))
  }
  const count = `${page.entries.length} ${page.entries.length === 1 ? 'entry' : 'entries'}, newest first`
  lines.push(page.next === null ? count : `${count}; older ones: --before ${page.next.id}`)
  return lines
}

/** A stored id as JSON: a number while it is exact, else its digits as a string. */
function idValue(id: string | null): number | string | null {
  if (id === null) return null
  const n = Number(id)
  return Number.isSafeInteger(n) ? n : id
}

/** The stored data as JSON: parsed, or its text when it does not parse. */
function dataValue(data: string | null): unknown {
  if (data === null) return null
  try {
    return JSON.parse(data) as unknown
  } catch {
    return data
  }
}

/** One entry as a JSON object: every stored field, named as the API names them. */
export function entryJson(e: FoundLogEntry): Record<string, unknown> {
  return {
    id: idValue(e.id),
    received_at: e.receivedAt.toISOString(),
    stored_at: e.storedAt.toISOString(),
    category: e.category,
    event_type: e.eventType,
    description: e.description,
    platform_username: e.platformUsername,
    platform_user_id: idValue(e.platformUserId),
    issued_by: e.issuedBy,
    code: e.code,
    source: e.source,
    source_ip: e.sourceIp,
    data: dataValue(e.data),
    delivery: e.delivery,
  }
}

// JSON.stringify escapes C0 controls but leaves DEL, C1 controls (U+009B is a terminal's CSI), the separators and
// bidirectional formatting as they are; they only occur inside strings, where an escape means the same.
const JSON_UNSAFE = /[\u007F-\u009F\u2028\u2029\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g

/** The page as one line of JSON: an array of its entries, newest first (`[]` when none). */
export function formatJson(page: SearchPage): string {
  return JSON.stringify(page.entries.map(entryJson)).replace(JSON_UNSAFE, unicodeEscape)
}
