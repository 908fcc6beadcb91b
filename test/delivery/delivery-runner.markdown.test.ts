/**
 * Staff channels show what was typed, nothing more: hostile markdown posted through POST /log and through a Discord
 * message the gateway relays in an audit entry reaches the sandbox's channel escaped, so Discord shows it as text.
 */
import t from 'tap'
import { DefaultIds } from '../../src/sandbox/world.js'
import { eventually, postJson } from '../helpers/stack.js'
import { startGatewayStack, type GatewayStack } from '../helpers/gateway-stack.js'
import { recorded, type Recorded } from '../helpers/delivery-harness.js'

/** What Discord displays for a text: its markdown drops the backslash before any punctuation. */
const shown = (text: string): string => text.replace(/\\([^0-9A-Za-z\s])/g, '$1')

/** Markdown that would still format: unescaped formatting characters, and line-start headings, quotes and lists. */
function liveMarkup(text: string): string[] {
  const bare = text.replace(/\\[^0-9A-Za-z\s]/g, 'x')
  return [...bare.matchAll(/[*_~`|[\]<>@]|^[ \t]*(?:#|>|-|\+|\d+\.)/gm)].map((m) => m[0])
}

const LINK = '[Appeal here](https://evil)'
const HOSTILE = `${LINK} **bold** @everyone \`tick\` ||spoiler|| __under__ ~~gone~~\n# Heading\n-# small\n> quote\n- item\n1. first`

let g: GatewayStack

t.before(async () => {
  g = await startGatewayStack(t, { env: { LOG_DESTINATION_SERVER: DefaultIds.serverLog, LOG_DESTINATION_MODERATION: DefaultIds.moderationLog } })
})

/** The newest embed in `channel` titled `title`, once there is one after the first `skip` messages. */
const embedOf = async (channel: string, title: string, skip: number): Promise<Recorded['embeds'][number]> =>
  eventually(async () => {
    const embeds = (await recorded(g.sandbox, { channel_id: channel })).slice(skip).flatMap((m) => m.embeds)
    return embeds.filter((e) => e.title === title).at(-1)
  }, 15_000, `${title} in ${channel}`)

t.test('POST /log: masked links, bold, spoilers, code, headings, quotes and @everyone arrive as literal text', async (t) => {
  const before = (await recorded(g.sandbox, { channel_id: DefaultIds.moderationLog })).length
  const res = await postJson(
    `${g.stack.api}/log/moderation`,
    { event_type: '**ban** [x](https://evil)', description: HOSTILE, issued_by: `@everyone ${LINK} ||mod||`, platform_username: 'Evil_1', platform_user_id: 42 },
    `Bearer ${g.stack.apiKey}`,
  )
  t.equal(res.status, 200)
  const embed = await embedOf(DefaultIds.moderationLog, 'Moderation log · \\*\\*ban\\*\\* \\[x\\](https://evil)', before)
  t.equal(
    embed.description,
    '\\[Appeal here\\](https://evil) \\*\\*bold\\*\\* \\@everyone \\`tick\\` \\|\\|spoiler\\|\\| \\_\\_under\\_\\_ \\~\\~gone\\~\\~\n\\# Heading\n\\-# small\n\\> quote\n\\- item\n1\\. first',
  )
  t.equal(shown(embed.description!), HOSTILE, 'Discord shows exactly what was typed')
  const field = (name: string) => embed.fields.find((f) => f.name === name)?.value ?? ''
  t.equal(field('Event'), '\\*\\*ban\\*\\* \\[x\\](https://evil)')
  t.equal(field('Issued by'), '\\@everyone \\[Appeal here\\](https://evil) \\|\\|mod\\|\\|')
  t.equal(field('Player'), '[Evil\\_1](https://www.roblox.com/users/42/profile) (42)', 'our own profile link is the only link')
  for (const [where, text] of [['description', embed.description!], ['title', embed.title], ['Event', field('Event')], ['Issued by', field('Issued by')]] as const) {
    t.same(liveMarkup(text), [], `${where}: no live markdown`)
  }
})

t.test('an audit entry: a deleted message relays its author and content as literal text', async (t) => {
  const author = { id: '840000000000000001', username: '**boss** [Appeal here](https://evil)' }
  const skip = (await recorded(g.sandbox, { channel_id: DefaultIds.serverLog })).length
  await g.control('POST', 'members', author)
  const joined = await embedOf(DefaultIds.serverLog, 'Server log · member\\_join', skip)
  t.equal(joined.description, `\\*\\*boss\\*\\* \\[Appeal here\\](https://evil) (${author.id}) joined`, 'a member join shows the username as typed')
  const msg = await g.control<{ id: string }>('POST', 'messages', { channel_id: DefaultIds.general, author_id: author.id, content: HOSTILE })
  await eventually(async () => ((await g.stack.redis.exists(g.stack.ctx.keys.message(msg.id))) === 1 ? true : undefined), 5000, 'message cached')
  const before = (await recorded(g.sandbox, { channel_id: DefaultIds.serverLog })).length
  await g.control('POST', 'dispatch', { t: 'MESSAGE_DELETE', d: { id: msg.id, channel_id: DefaultIds.general, guild_id: g.sandbox.defaultGuildId } })
  const embed = await embedOf(DefaultIds.serverLog, 'Server log · message\\_delete', before)
  const typed = `Message ${msg.id} by ${author.username} (${author.id}) deleted in <#${DefaultIds.general}>: ${HOSTILE}`
  t.equal(shown(embed.description!), typed, 'Discord shows exactly what was stored')
  t.match(embed.description, `by \\*\\*boss\\*\\* \\[Appeal here\\](https://evil) (${author.id}) deleted in \\<#${DefaultIds.general}\\>: \\[Appeal here\\]`)
  t.same(liveMarkup(embed.description!), [], 'no live markdown')
})
