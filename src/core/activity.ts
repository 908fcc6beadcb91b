/** Discord activities to the text lines games show, pure: filtering, ordering, sanitizing and cutting. */
import { spellsName } from './skeleton.js'

/** A Discord activity as it arrives from the gateway (raw snake_case) or from discord.js (camelCase); only the fields we use. */
export interface ActivityInput {
  type: number // 0 Playing, 1 Streaming, 2 Listening, 3 Watching, 4 Custom, 5 Competing
  name: string
  details?: string | null
  state?: string | null
  url?: string | null
  assets?: {
    large_text?: string | null
    small_text?: string | null
    largeText?: string | null
    smallText?: string | null
  } | null
}

/** Most characters (code points) a rendered text keeps after sanitizing; longer text is cut to 99 + '…'. */
export const MAX_TEXT_LENGTH = 100

/** Most activity groups rendered per user (after filtering), in the order given. */
export const MAX_ACTIVITIES = 5

const ELLIPSIS = '…'

const LONE_SURROGATE = /\p{Surrogate}/gu
// Tabs and line breaks are whitespace (Unicode White_Space); they become spaces so words on either side stay apart.
const BREAKING_WHITESPACE = /[\t\n\v\f\r\u0085\u2028\u2029]/g
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/g
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/g
const ZERO_WIDTH = /[\u200B\u200C\uFEFF]/g
// Every other format or default-ignorable character (LRM, RLM, word joiner, soft hyphen, Hangul fillers, invisible
// operators...) shows nothing and only hides text; kept are the joiner (handled below), variation selectors and tags,
// which emoji need.
const INVISIBLE =
  /(?![\u200D\uFE00-\uFE0F\u180B-\u180D\u180F\u{E0020}-\u{E007F}\u{E0100}-\u{E01EF}])[\p{Default_Ignorable_Code_Point}\p{Cf}]/gu
// Tag characters only mean something inside a flag sequence (🏴 + tags, as in the Scotland flag).
const STRAY_TAG = /(?<!\u{1F3F4}[\u{E0020}-\u{E007E}]*)[\u{E0020}-\u{E007F}]/gu
// A zero-width joiner glues emoji into one picture (👨‍👩‍👧, 🏳️‍🌈, 👩🏽‍💻); anywhere else it only hides text.
const STRAY_JOINER =
  /(?<!\p{Extended_Pictographic}\uFE0F?|\p{Emoji_Modifier})\u200D|\u200D(?!\p{Extended_Pictographic})/gu
const STRUCTURE: Readonly<Record<string, string>> = { ';': ',', '{': '(', '}': ')', '"': "'" }
const STRUCTURE_CHAR = /[;{}"]/g
const WHITESPACE_RUN = /\s+/g

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

const KNOWN_TYPES: ReadonlySet<number> = new Set([0, 1, 2, 3, 5])
const CUSTOM_STATUS = 4

function clean(text: string): string {
  return text
    .replace(LONE_SURROGATE, '')
    .replace(BREAKING_WHITESPACE, ' ')
    .replace(CONTROL, '')
    .replace(BIDI_CONTROL, '')
    .replace(ZERO_WIDTH, '')
    .replace(INVISIBLE, '')
    .replace(STRAY_TAG, '')
    .replace(STRAY_JOINER, '')
    .replace(STRUCTURE_CHAR, (c) => STRUCTURE[c] ?? c)
    .replace(WHITESPACE_RUN, ' ')
    .trim()
}

function codePointLength(text: string): number {
  let n = 0
  for (const _ of text) n++
  return n
}

function cutCodePoints(text: string, keep: number): string {
  let out = ''
  let n = 0
  for (const c of text) {
    if (n === keep) break
    out += c
    n++
  }
  return out
}

function cut(text: string, max: number): string {
  // A code point is at least one UTF-16 unit, so a string this short cannot exceed max code points.
  if (text.length <= max) return text
  if (codePointLength(text) <= max) return text
  if (max < 1) return ''
  const keep = max - 1
  let head = ''
  let used = 0
  for (const { segment } of graphemes.segment(text)) {
    const size = codePointLength(segment)
    if (used + size > keep) break
    head += segment
    used += size
  }
  // One cluster longer than the whole budget (stacked combining marks) would otherwise leave nothing at all.
  if (head === '') head = cutCodePoints(text, keep)
  return head.trimEnd() + ELLIPSIS
}

/** Makes untrusted text safe for one block line: no controls, invisible tricks or grammar characters; at most `max` code points. */
export function sanitizeText(text: string, max: number = MAX_TEXT_LENGTH): string {
  return cut(clean(text), max)
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

function activityTexts(activity: ActivityInput): string[] {
  const assets = activity.assets ?? {}
  return [
    activity.name,
    activity.details,
    activity.state,
    assets.large_text,
    assets.small_text,
    assets.largeText,
    assets.smallText,
  ]
    .map(textOf)
    .filter((text) => text !== '')
}

/**
 * Whether any text of the activity names the game platform as a reader would see it: any case, through invisible
 * characters, look-alike letters (UTS #39 skeleton), letter-by-letter spacing or dots, and line breaks.
 */
export function mentionsPlatform(activity: ActivityInput, gamePlatformName: string): boolean {
  const rawNeedle = gamePlatformName.toLowerCase()
  return activityTexts(activity).some((text) => text.toLowerCase().includes(rawNeedle) || spellsName(text, gamePlatformName))
}

/** Whether the activity may be shown: a known non-custom type, a non-empty name and no mention of the game platform. */
export function keepActivity(activity: ActivityInput, gamePlatformName: string): boolean {
  // Custom status is free text the user typed and often names the game, so it is never shown.
  if (activity.type === CUSTOM_STATUS) return false
  if (!KNOWN_TYPES.has(activity.type)) return false
  if (sanitizeText(textOf(activity.name)) === '') return false
  return !mentionsPlatform(activity, gamePlatformName)
}

function activityLines(activity: ActivityInput): string[] {
  const name = sanitizeText(textOf(activity.name))
  const details = sanitizeText(textOf(activity.details))
  const state = sanitizeText(textOf(activity.state))
  switch (activity.type) {
    case 0:
      return ['Playing', name]
    case 1:
      return [`Streaming on ${name}`, details, state]
    case 2:
      return [`Listening to ${name}`, details, state]
    case 3:
      return [`Watching ${name}`, details, state]
    case 5:
      return ['Competing in', name]
    default:
      return []
  }
}

/** Renders the shown activities as block lines: one group each, lines ending in `,` and the group's last in `;`. */
export function renderActivityGroups(activities: readonly ActivityInput[], gamePlatformName: string): string {
  let out = ''
  let groups = 0
  for (const activity of activities) {
    if (groups === MAX_ACTIVITIES) break
    if (!keepActivity(activity, gamePlatformName)) continue
    const lines = activityLines(activity).filter((line) => line !== '')
    lines.forEach((line, i) => {
      out += `${line}${i === lines.length - 1 ? ';' : ','}\n`
    })
    groups++
  }
  return out
}
