/** Discord activities to the text lines games show, pure: filtering, ordering, sanitizing and cutting. */
import { nameSpeller } from './skeleton.js'
import { drawnOrders, type DrawnText } from './visual-order.js'
import { DEFAULT_SHARE, shareShows, type ShareSetting } from './share.js'

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

/** One activity's block lines, as sent and as shown, in block order: only the lines the block shows. */
interface BlockLines {
  sent: string[]
  shown: string[]
}

function labelledLines(activity: ActivityInput, form: (text: string) => string): string[] {
  const name = form(textOf(activity.name))
  const details = form(textOf(activity.details))
  const state = form(textOf(activity.state))
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

function blockLines(activity: ActivityInput): BlockLines {
  const shown = labelledLines(activity, (text) => sanitizeText(text))
  const sent = labelledLines(activity, (text) => text)
  const kept = shown.map((line) => line !== '')
  return { sent: sent.filter((_, i) => kept[i]), shown: shown.filter((_, i) => kept[i]) }
}

/** Whether lines read together, one after the other, name the game platform. */
type PlatformJudge = (lines: readonly string[]) => boolean

function platformJudge(gamePlatformName: string): PlatformJudge {
  const rawNeedle = gamePlatformName.toLowerCase()
  const spells = nameSpeller(gamePlatformName)
  const inOrder = (text: string): boolean => text.toLowerCase().includes(rawNeedle) || spells(text)
  // A text is often judged alone and again among its activity's lines: it is drawn once.
  const drawings = new Map<string, DrawnText | null>()
  const drawn = (text: string): DrawnText | null => {
    if (!drawings.has(text)) drawings.set(text, drawnOrders(text))
    return drawings.get(text) ?? null
  }
  return (lines) => {
    if (inOrder(lines.join('\n'))) return true
    const each = lines.map(drawn)
    if (each.every((d) => d === null)) return false
    // Each line is a paragraph of its own, so the lines drawn together are the lines drawn one by one.
    const ltr = each.map((d, i) => d?.ltr ?? lines[i]).join('\n')
    const auto = each.map((d, i) => d?.auto ?? lines[i]).join('\n')
    return inOrder(ltr) || (auto !== ltr && inOrder(auto))
  }
}

function spellsPlatform(activity: ActivityInput, lines: BlockLines, judge: PlatformJudge): boolean {
  // Adjacent lines are read together (a game may draw them on one line), so a name cut between them is one mention.
  return activityTexts(activity).some((text) => judge([text])) || judge(lines.sent) || judge(lines.shown)
}

/**
 * Whether the activity names the game platform as a reader would see it: in any one of its texts, or across the
 * lines its block shows read together; any case, through invisible characters, look-alike letters (UTS #39
 * skeleton), letter-by-letter spacing or dots, and line breaks; in stored order and in the order a bidirectional
 * renderer draws it (so `\u202Exolbor`, drawn "roblox", counts).
 */
export function mentionsPlatform(activity: ActivityInput, gamePlatformName: string): boolean {
  return spellsPlatform(activity, blockLines(activity), platformJudge(gamePlatformName))
}

// The block lines of an activity that may be shown, or null when it is left out.
function shownGroup(activity: ActivityInput, judge: PlatformJudge): string[] | null {
  // Custom status is free text the user typed and often names the game, so it is never shown.
  if (activity.type === CUSTOM_STATUS) return null
  if (!KNOWN_TYPES.has(activity.type)) return null
  if (sanitizeText(textOf(activity.name)) === '') return null
  const lines = blockLines(activity)
  return spellsPlatform(activity, lines, judge) ? null : lines.shown
}

/** Whether the activity may be shown: a known non-custom type, a non-empty name and no mention of the game platform. */
export function keepActivity(activity: ActivityInput, gamePlatformName: string): boolean {
  return shownGroup(activity, platformJudge(gamePlatformName)) !== null
}

/**
 * Renders the shown activities as block lines: one group each, lines ending in `,` and the group's last in `;`. Only
 * the types `share` lets through are considered (before the MAX_ACTIVITIES cut, so hidden groups take no room).
 */
export function renderActivityGroups(activities: readonly ActivityInput[], gamePlatformName: string, share: ShareSetting = DEFAULT_SHARE): string {
  const judge = platformJudge(gamePlatformName)
  let out = ''
  let groups = 0
  for (const activity of activities) {
    if (groups === MAX_ACTIVITIES) break
    if (!shareShows(share, activity.type)) continue
    const lines = shownGroup(activity, judge)
    if (lines === null) continue
    lines.forEach((line, i) => {
      out += `${line}${i === lines.length - 1 ? ';' : ','}\n`
    })
    groups++
  }
  return out
}
