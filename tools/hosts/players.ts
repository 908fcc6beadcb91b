/**
 * Linked players for the host scenarios, made the way real ones are: a Discord member of a guild on a given shard
 * runs `/code` in the sandbox, the game server binds the code through the balancer, and the member's presence is set
 * through the sandbox. Plus what the fronts show for a code, parsed with the service's own block parser.
 */
import { parseCallbacks } from '../../src/presence/model/parse-blocks.js'
import { call, type Reply } from './clients.js'
import { sandboxCall, type Deployment } from './deployment.js'
import { CLIENT_ADDRESSES } from './topology.js'

/** A linked player. */
export interface Player {
  userId: string
  username: string
  robloxId: number
  robloxName: string
  shard: 0 | 1
  code: string
}

/** A Discord activity as the sandbox takes it. */
export interface Activity {
  type: number
  name: string
  details?: string
  state?: string
}

/** Makes a member on `shard`'s guild, gets their code with /code and binds it through the balancer. */
export async function linkPlayer(dep: Deployment, n: number, shard: 0 | 1): Promise<Player> {
  const userId = String(300_000_000_000_000_000n + BigInt(n))
  const username = `player${n}`
  const robloxId = 5000 + n
  const robloxName = `Builder${n}`
  const guildId = dep.world.guildOfShard[shard]
  await sandboxCall(dep, 'POST', 'members', { id: userId, username, guild_id: guildId })
  await sandboxCall(dep, 'POST', 'roblox-users', { id: robloxId, name: robloxName })
  const reply = await sandboxCall<{ content: string }>(dep, 'POST', 'commands', { user_id: userId, name: 'code', guild_id: guildId })
  const code = /\*\*([A-Z0-9]{4})\*\*/.exec(reply.content)?.[1]
  if (code === undefined) throw new Error(`no code in the /code reply: ${reply.content}`)
  const bind = await call(`${dep.api}/bind`, {
    from: CLIENT_ADDRESSES[0]!,
    body: { code, platform_username: robloxName, platform_user_id: robloxId },
    headers: { authorization: dep.bearer },
  })
  if (bind.status !== 200 || !bind.text.includes('"bound"')) throw new Error(`bind of ${code} answered ${bind.status} ${bind.text}`)
  return { userId, username, robloxId, robloxName, shard, code }
}

/** Sets a player's Discord presence in the sandbox (online with `activities`). */
export async function setActivity(dep: Deployment, player: Player, activities: Activity[]): Promise<void> {
  await sandboxCall(dep, 'POST', 'presence', { user_id: player.userId, status: 'online', activities })
}

/** What a callbacks answer shows for a player: `Playing/Minecraft`, `No activity`, `:message`, or `HTTP nnn`. */
export function shownIn(reply: Reply, code: string): string {
  if (reply.status !== 200) return reply.status === 0 ? `failed (${reply.error ?? '?'})` : `HTTP ${reply.status}`
  const parsed = parseCallbacks(reply.text)
  if (!parsed.ok) return `unparsable (${parsed.error})`
  const block = parsed.blocks.find((b) => b.code === code)
  if (block === undefined) return 'missing'
  if (block.marker === ':') return `:${block.message}`
  if (block.activities.length === 0) return 'No activity'
  return block.activities.map((a) => a.lines.join('/')).join(' + ')
}

/** The text `shownIn` gives for a single game activity. */
export function playing(game: string): string {
  return `Playing/${game}`
}

/** Source addresses the pollers rotate through (the first four are kept for the limits scenario's clients). */
const POLLER_ADDRESSES = CLIENT_ADDRESSES.slice(4)
let nextPoller = 0

/** What `api` (the balancer's or one front's) shows for `code` now, from the next poller address. */
export async function shownAt(api: string, code: string): Promise<string> {
  const from = POLLER_ADDRESSES[nextPoller++ % POLLER_ADDRESSES.length]!
  return shownIn(await call(`${api}/callbacks/${code}`, { from, timeoutMs: 5000 }), code)
}

/** Polls `api` every `everyMs` until it shows `expected` for `code`; the ms it took from `since`, or null on timeout. */
export async function waitShown(api: string, code: string, expected: string, since: number, timeoutMs = 30_000, everyMs = 50): Promise<number | null> {
  const until = since + timeoutMs
  while (Date.now() < until) {
    if ((await shownAt(api, code)) === expected) return Date.now() - since
    await new Promise((r) => setTimeout(r, everyMs))
  }
  return null
}

/**
 * Waits until both fronts (asked directly, not through the balancer) show `expected` for `code`: a scenario's steady
 * polling starts only once every front it may reach has read the marks and the change. The ms it took, or null.
 */
export async function waitShownOnBothFronts(dep: Deployment, code: string, expected: string, since: number, timeoutMs = 30_000): Promise<number | null> {
  const took = await Promise.all((['front-a', 'front-b'] as const).map((f) => waitShown(dep.frontApi(f), code, expected, since, timeoutMs)))
  return took.some((ms) => ms === null) ? null : Math.max(...(took as number[]))
}
