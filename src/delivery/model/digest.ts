/**
 * Digest mode, pure: when a chat destination has fallen behind, and what a digest message says. A destination has
 * fallen behind when more than DIGEST_FLOOR entries wait and either more than `backlog` wait or the oldest has waited
 * `afterMs`; it then gets one digest every `everyMs` summarizing every entry waiting at that moment, until a digest
 * time finds no more than it could post one by one (about one full message a second). A digest is one message within
 * Discord's limits (10 embeds, 6,000 characters): the counts by event type, the moderation lines and the most recent
 * lines, and the command that reads every entry it covers (all stay in MySQL).
 */
import type { LogCategoryName } from '../../queue/model/log-categories.js'
import {
  CATEGORY_STYLE,
  cutText,
  EmbedLimit,
  embedSize,
  escapeMarkdown,
  messagePayload,
  oneLine,
  textLength,
  type Embed,
  type EmbedField,
  type EntryView,
  type MessagePayload,
} from './embeds.js'

/** The digest settings (DELIVERY_DIGEST_BACKLOG, DELIVERY_DIGEST_AFTER_MS, DELIVERY_DIGEST_EVERY_MS); 0 turns a trigger off. */
export interface DigestSettings {
  backlog: number
  afterMs: number
  everyMs: number
}

/** A backlog of at most this many entries (five full messages) is always posted entry by entry. */
export const DIGEST_FLOOR = 50
/** Entries one digest covers at most; a larger backlog gets the next digest at once. */
export const DIGEST_MAX_ENTRIES = 10_000
/** Entries a second a channel shows (its bucket of 5 messages per 5 s, 10 embeds each): what leaving digest mode assumes. */
export const CHANNEL_ENTRIES_PER_SECOND = 10
/** Moderation lines and most recent lines a digest shows at most (fewer when their text is long). */
export const MODERATION_LINES = 15
export const RECENT_LINES = 5

/** Event types the service itself writes that matter to moderators wherever they are logged. */
const SERVICE_MODERATION_EVENTS: ReadonlySet<string> = new Set(['threat_detection', 'member_ban', 'member_unban'])

/** Why a destination fell behind. */
export type BehindReason = 'backlog' | 'wait'

/** Whether a destination with `pending` entries, the oldest waiting `oldestWaitMs`, has fallen behind, and why. */
export function fallenBehind(settings: DigestSettings, pending: number, oldestWaitMs: number): BehindReason | null {
  if (pending <= DIGEST_FLOOR) return null
  if (settings.backlog > 0 && pending > settings.backlog) return 'backlog'
  if (settings.afterMs > 0 && oldestWaitMs >= settings.afterMs) return 'wait'
  return null
}

/** How many pending entries a count needs to go up to for {@link fallenBehind} to decide. */
export function countCap(settings: DigestSettings): number {
  return Math.max(settings.backlog, DIGEST_FLOOR) + 1
}

/** At most this many entries waiting at a digest time: the destination has caught up and posts entry by entry again. */
export function caughtUpAt(settings: DigestSettings): number {
  return Math.max(1, Math.floor(settings.everyMs / 1000) * CHANNEL_ENTRIES_PER_SECOND)
}

/** A moderation line: any entry of the moderation log, one carrying a code (a linked user), or a service moderation event. */
export function isModerationLine(category: LogCategoryName, eventType: string, hasCode: boolean): boolean {
  return category === 'moderation' || hasCode || SERVICE_MODERATION_EVENTS.has(eventType)
}

/** What a digest reads of each entry it covers. */
export interface DigestRow {
  id: string
  eventType: string
  hasCode: boolean
  receivedAt: Date
}

/** What one digest covers and which entries it shows in full. */
export interface DigestPlan {
  category: LogCategoryName
  /** Every entry summarized, in id order. */
  ids: string[]
  firstReceivedAt: Date
  lastReceivedAt: Date
  /** Entries by event type, most first (then by name). */
  counts: Array<{ eventType: string; count: number }>
  /** Moderation lines: how many, and the ids of the most recent ones to show. */
  moderation: { total: number; ids: string[] }
  /** The most recent entries to show that are not moderation lines shown already. */
  recentIds: string[]
}

/** Plans the digest of `rows` (in id order, at least one). */
export function planDigest(category: LogCategoryName, rows: readonly DigestRow[]): DigestPlan {
  if (rows.length === 0) throw new Error('a digest needs at least one entry')
  const counts = new Map<string, number>()
  const moderation: string[] = []
  let first = rows[0]!.receivedAt
  let last = first
  for (const row of rows) {
    counts.set(row.eventType, (counts.get(row.eventType) ?? 0) + 1)
    if (isModerationLine(category, row.eventType, row.hasCode)) moderation.push(row.id)
    if (row.receivedAt < first) first = row.receivedAt
    if (row.receivedAt > last) last = row.receivedAt
  }
  const shownModeration = moderation.slice(-MODERATION_LINES)
  const taken = new Set(shownModeration)
  const recentIds = rows
    .map((r) => r.id)
    .filter((id) => !taken.has(id))
    .slice(-RECENT_LINES)
  return {
    category,
    ids: rows.map((r) => r.id),
    firstReceivedAt: first,
    lastReceivedAt: last,
    counts: [...counts].map(([eventType, count]) => ({ eventType, count })).sort((a, b) => b.count - a.count || (a.eventType < b.eventType ? -1 : 1)),
    moderation: { total: moderation.length, ids: shownModeration },
    recentIds,
  }
}

// Room for the moderation and most recent lines, in characters; the summary takes at most about 2,300 (two fields of
// event-type counts of at most 800 each), so one message stays under Discord's 6,000.
const ROOM = { moderation: 2400, recent: 1200 } as const
const COUNT_FIELD_ROOM = 800
const MODERATION_COLOR = CATEGORY_STYLE.moderation.color

const number = (n: number): string => n.toLocaleString('en-US')
const clock = (d: Date): string => d.toISOString().slice(11, 19)

/** The time of `d` to the second, rounded down (or up) so a search from it (until it) includes `d`. */
function searchTime(d: Date, up: boolean): string {
  const seconds = up ? Math.floor(d.getTime() / 1000) + 1 : Math.floor(d.getTime() / 1000)
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z')
}

/** The command that lists every entry a digest covers. */
export function readCommand(plan: Pick<DigestPlan, 'category' | 'firstReceivedAt' | 'lastReceivedAt'>): string {
  return `presence-link logs search --category ${plan.category} --since ${searchTime(plan.firstReceivedAt, false)} --until ${searchTime(plan.lastReceivedAt, true)}`
}

/** One entry as a line: `#id` time **type** player by issuer: description, every untrusted text escaped. */
export function entryLine(e: EntryView, descriptionRoom: number): string {
  const type = escapeMarkdown(cutText(oneLine(e.eventType), 64))
  const name = e.platformUsername === null ? '' : oneLine(e.platformUsername)
  const who = name !== '' || e.platformUserId !== null ? ` ${escapeMarkdown(cutText(name || (e.platformUserId ?? ''), 40))}${e.platformUserId !== null && name !== '' ? ` (${e.platformUserId})` : ''}` : ''
  const by = e.issuedBy === null ? '' : ` by ${escapeMarkdown(cutText(oneLine(e.issuedBy), 40))}`
  const code = e.code === null ? '' : ` \`${oneLine(e.code).replace(/`/g, "'")}\``
  const text = oneLine(e.description)
  return `\`#${e.id}\` ${clock(e.receivedAt)} **${type}**${who}${by}${code}${text === '' ? '' : `: ${escapeMarkdown(cutText(text, descriptionRoom))}`}`
}

/** The last lines of `lines` that fit in `room` characters (one per line plus line breaks), and how many were left out. */
function fitLast(lines: readonly string[], room: number): { lines: string[]; left: number } {
  const kept: string[] = []
  let used = 0
  for (let i = lines.length - 1; i >= 0; i--) {
    const size = textLength(lines[i]!) + 1
    if (used + size > room) break
    kept.unshift(lines[i]!)
    used += size
  }
  return { lines: kept, left: lines.length - kept.length }
}

/** The counts by event type as fields of at most 1,024 characters (two at most), with a line for what does not fit. */
function countFields(counts: DigestPlan['counts']): EmbedField[] {
  const lines = counts.map((c) => `${escapeMarkdown(cutText(oneLine(c.eventType), 64))} — ${number(c.count)}`)
  const fields: EmbedField[] = []
  let current: string[] = []
  let size = 0
  let shown = 0
  for (const line of lines) {
    if (size + textLength(line) + 1 > COUNT_FIELD_ROOM) {
      fields.push({ name: fields.length === 0 ? 'By event type' : 'By event type (continued)', value: current.join('\n'), inline: false })
      current = []
      size = 0
      if (fields.length === 2) break
    }
    current.push(line)
    size += textLength(line) + 1
    shown++
  }
  const rest = counts.slice(shown)
  if (rest.length > 0) {
    const entries = rest.reduce((n, c) => n + c.count, 0)
    current.push(`… and ${number(rest.length)} more event types (${number(entries)} entries)`)
  }
  if (current.length > 0) fields.push({ name: fields.length === 0 ? 'By event type' : 'By event type (continued)', value: current.join('\n'), inline: false })
  return fields
}

function summaryEmbed(plan: DigestPlan): Embed {
  const style = CATEGORY_STYLE[plan.category]
  const total = plan.ids.length
  const description = [
    `Entries arrived faster than this channel can show them, so ${number(total)} ${total === 1 ? 'entry is' : 'entries are'} summarized here instead of one embed each. Every entry is stored.`,
    `Read them all: \`${readCommand(plan)}\``,
  ].join('\n')
  return {
    title: `${style.label} · digest of ${number(total)} ${total === 1 ? 'entry' : 'entries'}`,
    description,
    color: style.color,
    fields: [
      { name: 'Entries', value: `#${plan.ids[0]} – #${plan.ids[total - 1]}`, inline: true },
      { name: 'Received (UTC)', value: `${clock(plan.firstReceivedAt)} – ${clock(plan.lastReceivedAt)}`, inline: true },
      ...countFields(plan.counts),
    ],
    footer: { text: `Digest · entries #${plan.ids[0]}–#${plan.ids[total - 1]}` },
    timestamp: plan.lastReceivedAt.toISOString(),
  }
}

/** An embed of the last `lines` that fit in `room`; `leftNote` opens it when lines were left out (`hidden` more were never offered). */
function linesEmbed(title: string, color: number, lines: string[], hidden: number, room: number, leftNote: (left: number) => string, timestamp: string): Embed | null {
  const fitted = fitLast(lines, room - 120)
  if (fitted.lines.length === 0) return null
  const left = fitted.left + hidden
  const body = [...(left > 0 ? [leftNote(left)] : []), ...fitted.lines].join('\n')
  return { title, description: body, color, fields: [], footer: { text: 'Digest' }, timestamp }
}

/**
 * Renders a digest: the summary (counts by event type, the entry and time range, the command that reads them all), the
 * moderation lines (the most recent stay when they do not all fit) and the most recent lines. `shown` holds the entries
 * of `plan.moderation.ids` and `plan.recentIds`. The message always fits Discord's limits: each part takes the room
 * the parts before it left.
 */
export function renderDigest(plan: DigestPlan, shown: ReadonlyMap<string, EntryView>): MessagePayload {
  const stamp = plan.lastReceivedAt.toISOString()
  const embeds: Embed[] = [summaryEmbed(plan)]
  const left = (): number => EmbedLimit.total - embeds.reduce((n, e) => n + embedSize(e), 0)
  const linesOf = (ids: readonly string[], room: number): string[] => ids.flatMap((id) => {
    const e = shown.get(id)
    return e === undefined ? [] : [entryLine(e, room)]
  })
  if (plan.moderation.total > 0) {
    const unread = plan.moderation.total - plan.moderation.ids.length
    const note = (n: number): string => `… ${number(n)} earlier moderation entries: see the command above`
    const embed = linesEmbed(`Moderation entries (${number(plan.moderation.total)})`, MODERATION_COLOR, linesOf(plan.moderation.ids, 160), unread, Math.min(ROOM.moderation, left() - ROOM.recent), note, stamp)
    if (embed !== null) embeds.push(embed)
  }
  if (plan.recentIds.length > 0) {
    const embed = linesEmbed('Most recent entries', CATEGORY_STYLE[plan.category].color, linesOf(plan.recentIds, 100), 0, Math.min(ROOM.recent, left()), (n) => `… (${number(n)} more not shown)`, stamp)
    if (embed !== null) embeds.push(embed)
  }
  if (left() < 0) throw new Error(`digest of ${EmbedLimit.total - left()} characters, over ${EmbedLimit.total}`)
  return messagePayload(embeds)
}
