/*
 * Discord's message limits (content, embeds, fields, the 6,000-character embed total), checked on every message the
 * bot sends or edits through the fake REST API, with Discord's 50035 `errors` tree so discord.js reports them as-is.
 * Pure: no I/O.
 */
/** Discord's message limits, checked on every message the bot sends or edits. */
export const MessageLimits = {
  content: 2000,
  embeds: 10,
  embedTotal: 6000,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  authorName: 256,
} as const

/** Result of {@link checkMessage}: fine, or the Discord error name with its `errors` tree. */
export type MessageCheck =
  | { ok: true }
  | { ok: false; error: 'emptyMessage' }
  | { ok: false; error: 'invalidFormBody'; errors: Record<string, unknown> }

type Tree = Record<string, unknown>

const tooLong = (max: number): Tree => ({
  _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${max} or fewer in length.` }],
})

function lengthOf(value: unknown): number {
  return typeof value === 'string' ? [...value].length : 0
}

function checkEmbed(embed: unknown): { tree: Tree | null; size: number } {
  if (typeof embed !== 'object' || embed === null) return { tree: null, size: 0 }
  const e = embed as Record<string, unknown>
  const tree: Tree = {}
  let size = 0
  const field = (name: string, value: unknown, max: number, into: Tree): void => {
    const n = lengthOf(value)
    size += n
    if (n > max) into[name] = tooLong(max)
  }
  field('title', e.title, MessageLimits.title, tree)
  field('description', e.description, MessageLimits.description, tree)
  const footer = e.footer as Record<string, unknown> | undefined
  if (footer && typeof footer === 'object') {
    const sub: Tree = {}
    field('text', footer.text, MessageLimits.footer, sub)
    if (Object.keys(sub).length > 0) tree.footer = sub
  }
  const author = e.author as Record<string, unknown> | undefined
  if (author && typeof author === 'object') {
    const sub: Tree = {}
    field('name', author.name, MessageLimits.authorName, sub)
    if (Object.keys(sub).length > 0) tree.author = sub
  }
  if (Array.isArray(e.fields)) {
    const fieldsTree: Tree = {}
    if (e.fields.length > MessageLimits.fields) {
      fieldsTree._errors = [{ code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${MessageLimits.fields} or fewer in length.` }]
    }
    e.fields.forEach((f: unknown, i) => {
      if (typeof f !== 'object' || f === null) return
      const sub: Tree = {}
      field('name', (f as Tree).name, MessageLimits.fieldName, sub)
      field('value', (f as Tree).value, MessageLimits.fieldValue, sub)
      if (Object.keys(sub).length > 0) fieldsTree[String(i)] = sub
    })
    if (Object.keys(fieldsTree).length > 0) tree.fields = fieldsTree
  }
  return { tree: Object.keys(tree).length > 0 ? tree : null, size }
}

/** Checks a message body against Discord's limits; `requireBody` also refuses a message with nothing to show. */
export function checkMessage(body: Record<string, unknown>, requireBody: boolean): MessageCheck {
  const errors: Tree = {}
  if (lengthOf(body.content) > MessageLimits.content) errors.content = tooLong(MessageLimits.content)
  const embeds = Array.isArray(body.embeds) ? body.embeds : []
  if (embeds.length > MessageLimits.embeds) {
    errors.embeds = tooLong(MessageLimits.embeds)
  } else {
    const embedsTree: Tree = {}
    let total = 0
    embeds.forEach((embed, i) => {
      const { tree, size } = checkEmbed(embed)
      total += size
      if (tree) embedsTree[String(i)] = tree
    })
    if (total > MessageLimits.embedTotal) {
      embedsTree._errors = [{ code: 'MAX_EMBED_SIZE_EXCEEDED', message: `Embed size exceeds maximum size of ${MessageLimits.embedTotal}` }]
    }
    if (Object.keys(embedsTree).length > 0) errors.embeds = embedsTree
  }
  if (Object.keys(errors).length > 0) return { ok: false, error: 'invalidFormBody', errors }
  if (requireBody) {
    const hasContent = typeof body.content === 'string' && body.content.length > 0
    const hasOther =
      embeds.length > 0 ||
      (Array.isArray(body.components) && body.components.length > 0) ||
      (Array.isArray(body.sticker_ids) && body.sticker_ids.length > 0) ||
      (Array.isArray(body.__files) && body.__files.length > 0) ||
      body.poll !== undefined
    if (!hasContent && !hasOther) return { ok: false, error: 'emptyMessage' }
  }
  return { ok: true }
}
