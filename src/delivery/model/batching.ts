/**
 * Packing embeds into messages, pure: in order, at most 10 embeds and 6,000 characters per message, and the
 * decision which packed messages go out now (full ones at once, the partial tail once it waited the window).
 */
import { EmbedLimit, embedSize, type Embed } from './embeds.js'

/** Discord's per-message limits for embeds. */
export const MessageLimit = { embeds: 10, characters: EmbedLimit.total } as const

/** An entry to send: its id, its embed and when this process first saw it pending (epoch ms). */
export interface Outgoing {
  id: string
  embed: Embed
  firstSeenMs: number
}

/** One message: the entries it carries, in order, and their total size. */
export interface PackedMessage {
  entries: Outgoing[]
  size: number
}

/** Packs entries into messages greedily, keeping their order; every embed must fit a message alone. */
export function packMessages(entries: readonly Outgoing[], limits: { embeds: number; characters: number } = MessageLimit): PackedMessage[] {
  const messages: PackedMessage[] = []
  let current: PackedMessage | null = null
  for (const entry of entries) {
    const size = embedSize(entry.embed)
    if (size > limits.characters) throw new Error(`entry ${entry.id} renders to ${size} characters, over the ${limits.characters} limit`)
    if (current === null || current.entries.length >= limits.embeds || current.size + size > limits.characters) {
      current = { entries: [], size: 0 }
      messages.push(current)
    }
    current.entries.push(entry)
    current.size += size
  }
  return messages
}

/**
 * How many of the packed messages to send now. Every message but the last is full (packing moved on), so it goes.
 * The last goes when it is full or when its oldest entry has waited `windowMs`; otherwise it waits so a burst
 * fills it (a read cut off by its row limit also ends in such a partial message: the next read completes it).
 */
export function readyCount(
  messages: readonly PackedMessage[],
  opts: { nowMs: number; windowMs: number; limits?: { embeds: number; characters: number } },
): number {
  const last = messages[messages.length - 1]
  if (last === undefined) return 0
  const full = last.entries.length >= (opts.limits ?? MessageLimit).embeds
  const waited = opts.nowMs - (last.entries[0]?.firstSeenMs ?? opts.nowMs) >= opts.windowMs
  return full || waited ? messages.length : messages.length - 1
}
