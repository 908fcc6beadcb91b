/**
 * Log entries as Discord embeds, pure. Each embed is labeled with its category (title and colour) and carries
 * every field of the entry; texts are cut at Discord's limits with an ellipsis, on grapheme boundaries so an emoji
 * is never split. Lengths are counted in code points, as Discord counts them. Every untrusted text is markdown-escaped,
 * so staff channels show what was typed and never a masked link, a heading or a spoiler.
 */
import type { LogCategoryName } from '../../queue/model/log-categories.js'

/** Discord's embed limits (platform notes). */
export const EmbedLimit = {
  title: 256,
  description: 4096,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  /** Characters over all embeds of one message; one embed must fit too. */
  total: 6000,
} as const

/** Title label and colour of each category. */
export const CATEGORY_STYLE: Readonly<Record<LogCategoryName, { label: string; color: number }>> = Object.freeze({
  server: { label: 'Server log', color: 0x5865f2 },
  ingame: { label: 'In-game log', color: 0x57f287 },
  moderation: { label: 'Moderation log', color: 0xed4245 },
})

/** What an embed shows of a stored entry. */
export interface EntryView {
  id: string
  category: LogCategoryName
  eventType: string
  description: string
  platformUsername: string | null
  platformUserId: string | null
  issuedBy: string | null
  code: string | null
  source: string
  receivedAt: Date
}

/** One embed field. */
export interface EmbedField {
  name: string
  value: string
  inline: boolean
}

/** The embed shape sent to Discord. */
export interface Embed {
  title: string
  description?: string
  color: number
  fields: EmbedField[]
  footer: { text: string }
  timestamp: string
}

/** A message body: embeds only, and no mention in it can ever ping. */
export interface MessagePayload {
  embeds: Embed[]
  allowed_mentions: { parse: [] }
}

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' })

/** Length in code points. */
export function textLength(text: string): number {
  let n = 0
  for (const _ of text) n++
  return n
}

/** Cuts `text` to at most `max` code points, ending in `…` when anything was removed. */
export function cutText(text: string, max: number): string {
  if (textLength(text) <= max) return text
  if (max <= 0) return ''
  let out = ''
  let used = 0
  for (const { segment } of segmenter.segment(text)) {
    const n = textLength(segment)
    if (used + n > max - 1) break
    out += segment
    used += n
  }
  return `${out}…`
}

// C0/C1 controls other than tab and line feed; descriptions keep their line breaks, one-line texts lose them.
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g
const LINE_BREAKS = /[\t\n\u2028\u2029]+/g

/** `text` on one line: control characters and line breaks become spaces, ends trimmed. */
export function oneLine(text: string): string {
  return text.replace(CONTROLS, ' ').replace(LINE_BREAKS, ' ').trim()
}

// Characters that start Discord formatting anywhere in a line: emphasis, strike, code, spoilers, masked links, and
// `<...>` (mentions, channels, timestamps, custom emoji, unembedded links). `@` is escaped so `@everyone` and `@here`
// read as typed. Parentheses only matter after `[...]`, which is escaped, so they stay readable.
const INLINE_MARKDOWN = /[\\*_~`|[\]<>@]/g
// Formatting that only counts at the start of a line: headings and subtext (`#`, `-#`), quotes (`>`, escaped
// above), and bulleted or numbered lists (`-`, `+`, `1.`).
const LINE_START_MARKDOWN = /^([ \t]*)([#+-]|\d+\.)/gm

/**
 * Escapes Discord markdown so untrusted text shows exactly as typed: each formatting character gets a backslash,
 * which Discord hides (its markdown drops a backslash before any punctuation). Bare URLs stay clickable: they show
 * their full address, so they cannot pretend to be something else.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(INLINE_MARKDOWN, (c) => `\\${c}`)
    .replace(LINE_START_MARKDOWN, (_all, space: string, mark: string) => `${space}${mark.endsWith('.') ? `${mark.slice(0, -1)}\\.` : `\\${mark}`}`)
}

/** The Roblox profile page of a user id. */
export function profileUrl(platformUserId: string): string {
  return `https://www.roblox.com/users/${platformUserId}/profile`
}

function playerValue(e: EntryView): string | null {
  const name = e.platformUsername === null ? null : oneLine(e.platformUsername)
  if (e.platformUserId !== null) {
    return `[${escapeMarkdown(name || e.platformUserId)}](${profileUrl(e.platformUserId)}) (${e.platformUserId})`
  }
  return name ? escapeMarkdown(name) : null
}

/** Sum of the characters Discord counts toward the 6,000 limit. */
export function embedSize(embed: Embed): number {
  let size = textLength(embed.title) + textLength(embed.description ?? '') + textLength(embed.footer.text)
  for (const f of embed.fields) size += textLength(f.name) + textLength(f.value)
  return size
}

/** Renders one entry; the result always fits Discord's limits on its own. */
export function renderEntryEmbed(e: EntryView): Embed {
  const style = CATEGORY_STYLE[e.category]
  const fields: EmbedField[] = []
  const add = (name: string, value: string | null) => {
    if (value !== null && value !== '') fields.push({ name, value: cutText(value, EmbedLimit.fieldValue), inline: true })
  }
  // Every text below comes from a game server, a Discord user or an API key's name: all of it is escaped.
  const eventType = escapeMarkdown(oneLine(e.eventType))
  add('Event', eventType)
  add('Player', playerValue(e))
  add('Issued by', e.issuedBy === null ? null : escapeMarkdown(oneLine(e.issuedBy)))
  // Inside a code span Discord applies no formatting; only a backtick could end it early.
  add('Code', e.code === null ? null : `\`${oneLine(e.code).replace(/`/g, "'")}\``)
  add('Source', escapeMarkdown(oneLine(e.source)))
  const embed: Embed = {
    title: cutText(`${style.label} · ${eventType}`, EmbedLimit.title),
    color: style.color,
    fields,
    footer: { text: cutText(`Entry #${e.id}`, EmbedLimit.footer) },
    timestamp: e.receivedAt.toISOString(),
  }
  const description = escapeMarkdown(e.description.replace(CONTROLS, ' '))
  if (description.trim() !== '') {
    const room = Math.min(EmbedLimit.description, EmbedLimit.total - embedSize(embed))
    embed.description = cutText(description, room)
  }
  return embed
}

/** The body of a message carrying `embeds`. */
export function messagePayload(embeds: Embed[]): MessagePayload {
  return { embeds, allowed_mentions: { parse: [] } }
}
