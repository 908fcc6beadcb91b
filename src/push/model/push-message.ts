/**
 * The messages the publisher sends through Open Cloud messaging (pure). A message is a JSON string of at most
 * MESSAGE_MAX_BYTES (Roblox's 1 kB limit), one of:
 *
 * - `{"v":1,"blocks":{"AB12":"<callbacks block>",...}}`  the changed blocks, exactly as GET /api/v1/callbacks/AB12 answers
 * - `{"v":1,"codes":["AB12",...]}`                        when the changed blocks do not fit one message: the codes only,
 *                                                          and each server reads its own with rpc or callbacks
 *
 * Every live server of the universe receives every message and keeps only the codes of its own players.
 */

/** The topic every message is published on (the module subscribes to it with MessagingService:SubscribeAsync). */
export const PUSH_TOPIC = 'presence-link'

/** Roblox's limit on one message, in bytes of its UTF-8 text. */
export const MESSAGE_MAX_BYTES = 1024

/** One changed code and its callbacks block as rendered now. */
export interface ChangedBlock {
  readonly code: string
  readonly block: string
}

/** A message ready to publish: its text, the codes it carries and its kind (the label of the published metric). */
export interface PlannedMessage {
  readonly kind: 'blocks' | 'codes'
  readonly message: string
  readonly codes: readonly string[]
}

/** UTF-8 length of a string without allocating a buffer. */
export function utf8Bytes(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4
        i++
      } else bytes += 3
    } else bytes += 3
  }
  return bytes
}

/** The blocks message for `changed` (in the given order). */
export function blocksMessage(changed: readonly ChangedBlock[]): string {
  const blocks: Record<string, string> = {}
  for (const { code, block } of changed) blocks[code] = block
  return JSON.stringify({ v: 1, blocks })
}

/** The codes-only message for `codes`. */
export function codesMessage(codes: readonly string[]): string {
  return JSON.stringify({ v: 1, codes })
}

// `{"v":1,"codes":[]}` is 20 bytes; each code adds `"AB12"` (6) and a comma between codes.
const CODES_OVERHEAD = codesMessage([]).length
const CODE_COST = 7

/** Most codes one codes-only message holds (every code is 4 ASCII characters). */
export const CODES_PER_MESSAGE = Math.floor((MESSAGE_MAX_BYTES - CODES_OVERHEAD + 1) / CODE_COST)

/**
 * The messages that carry `changed`: one blocks message when every block fits in MESSAGE_MAX_BYTES together, else
 * codes-only messages of at most CODES_PER_MESSAGE codes each, in the given order. Empty input gives no message.
 */
export function planMessages(changed: readonly ChangedBlock[]): PlannedMessage[] {
  if (changed.length === 0) return []
  const codes = changed.map((c) => c.code)
  const blocks = blocksMessage(changed)
  if (utf8Bytes(blocks) <= MESSAGE_MAX_BYTES) return [{ kind: 'blocks', message: blocks, codes }]
  const planned: PlannedMessage[] = []
  for (let i = 0; i < codes.length; i += CODES_PER_MESSAGE) {
    const chunk = codes.slice(i, i + CODES_PER_MESSAGE)
    planned.push({ kind: 'codes', message: codesMessage(chunk), codes: chunk })
  }
  return planned
}

/** The message `push test` publishes: a codes message naming no code, which a server reads as "nothing changed". */
export const TEST_MESSAGE = codesMessage([])
