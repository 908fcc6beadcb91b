/** Operator commands for delivery and safety: destinations, logs replay, watchlist, infractions. The last line is the result. */
import { describeTarget, DESTINATION_VARIABLE, parseDestinationTarget } from '../delivery/model/destination.js'
import { isLogCategory, LOG_CATEGORIES, type LogCategoryName } from '../queue/model/log-categories.js'
import { MAX_WATCH_REASON, PLATFORM_USER_ID } from '../safety/model/watchlist.js'
import { enableDestination, getDestination, listDestinations, setDestination, unsetDestination } from '../mysql/destination-rows.js'
import { countDeliveryStates, replayEntries } from '../mysql/log-entry-rows.js'
import { countInfractions, listInfractions, MAX_INFRACTION_PAGE, MAX_PARDON_REASON, pardonInfraction, type Infraction, type InfractionFilter } from '../mysql/infraction-rows.js'
import { addToWatchlist, listWatchlist, removeFromWatchlist } from '../mysql/watchlist-rows.js'
import type { ProcessContext } from '../runtime/process-context.js'
import { openDatabase } from '../runtime/storage.js'
import { operatorName, readCodeArgument, SNOWFLAKE } from './admin-commands.js'
import { usage, type CommandOutput } from './command.js'

function fail(message: string): CommandOutput {
  return { lines: [`error: ${message}`], exitCode: 1 }
}

// Date only (UTC midnight), or a time with Z or an offset: a zoneless time would silently mean the machine's zone.
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2}))?$/

/** Reads an ISO time as `--since` takes it; null when it is not one. */
export function parseSince(value: string | undefined): Date | null {
  if (value === undefined || !ISO_TIME.test(value)) return null
  const [y, m, d] = value.slice(0, 10).split('-').map(Number) as [number, number, number]
  // Date.parse rolls 2024-02-30 over into March; a calendar date that does not exist is refused instead.
  if (new Date(Date.UTC(y, m - 1, d)).getUTCDate() !== d || m < 1 || m > 12) return null
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? null : new Date(ms)
}

/** `presence-link destinations list`. */
export async function listDestinationsCommand(ctx: ProcessContext): Promise<CommandOutput> {
  const api = ctx.config.discordApi
  const db = await openDatabase(ctx, 2)
  const stored = new Map((await listDestinations(db, api)).map((d) => [d.category, d]))
  const lines: string[] = []
  for (const c of LOG_CATEGORIES) {
    const d = stored.get(c)
    const counts = await countDeliveryStates(db, c)
    const tally = `pending ${counts.pending}, sent ${counts.sent}, in digests ${counts.digested}, failed ${counts.failed}, not delivered ${counts.none}`
    if (d === undefined) {
      lines.push(`${c}\t(no destination)\t-\t${tally}`)
      continue
    }
    const where = d.target.ok ? describeTarget(d.target.target) : `unusable target (${d.target.message})`
    const state = d.disabledAt === null ? 'active' : `disabled since ${d.disabledAt.toISOString()}: ${d.disabledReason ?? ''}`
    lines.push(`${c}\t${where}\t${state}\t${tally}\tset by ${d.setBy}`)
  }
  return { lines, exitCode: 0 }
}

/** `presence-link destinations set CATEGORY TARGET | unset CATEGORY | retry CATEGORY`. */
export async function changeDestinationCommand(
  ctx: ProcessContext,
  sub: 'set' | 'unset' | 'retry',
  category: string | undefined,
  target: string | undefined,
): Promise<CommandOutput> {
  const api = ctx.config.discordApi
  if (category === undefined || !isLogCategory(category)) return usage(`destinations ${sub} needs a CATEGORY: server, ingame or moderation`)
  const fromEnv = ctx.config.logDestinations[category] !== ''
  const envNote = `note: ${DESTINATION_VARIABLE[category]} is set; the delivery consumer puts it back when it starts`
  if (sub === 'set') {
    if (target === undefined) return usage('destinations set needs a TARGET: a channel id or a webhook URL')
    const parsed = parseDestinationTarget(target, api)
    if (!parsed.ok) return usage(`TARGET ${parsed.message}`)
    const db = await openDatabase(ctx, 2)
    await setDestination(db, category, parsed.target, operatorName(), { enable: true })
    return { lines: [...(fromEnv ? [envNote] : []), `${category} → ${describeTarget(parsed.target)}`], exitCode: 0 }
  }
  const db = await openDatabase(ctx, 2)
  if (sub === 'unset') {
    if (!(await unsetDestination(db, category))) return fail(`${category} has no destination`)
    return { lines: [...(fromEnv ? [envNote] : []), `removed the ${category} destination: its new entries are stored and not delivered`], exitCode: 0 }
  }
  if ((await getDestination(db, category, api)) === undefined) return fail(`${category} has no destination: set one with destinations set ${category} TARGET`)
  const enabled = await enableDestination(db, category)
  const { pending } = await countDeliveryStates(db, category)
  return {
    lines: [enabled ? `re-enabled ${category}: ${pending} pending entries will be sent in order` : `${category} was not disabled: ${pending} pending entries`],
    exitCode: 0,
  }
}

/** `presence-link logs replay --category C --since T`: sends a category's entries received since T again. */
export async function replayLogsCommand(ctx: ProcessContext, category: string | undefined, sinceText: string | undefined): Promise<CommandOutput> {
  if (category === undefined || !isLogCategory(category)) return usage('logs replay needs --category server, ingame or moderation')
  const since = parseSince(sinceText)
  if (since === null) return usage('logs replay needs --since with an ISO time like 2024-05-01 or 2024-05-01T12:00:00Z')
  const db = await openDatabase(ctx, 2)
  if ((await getDestination(db, category as LogCategoryName, ctx.config.discordApi)) === undefined) {
    return fail(`${category} has no destination: set one with destinations set ${category} TARGET first`)
  }
  const count = await replayEntries(db, category, since)
  return { lines: [`queued ${count} ${category} entries received since ${since.toISOString()} for delivery`], exitCode: 0 }
}

/** `presence-link watchlist list`. */
export async function listWatchlistCommand(ctx: ProcessContext): Promise<CommandOutput> {
  const db = await openDatabase(ctx, 2)
  const entries = await listWatchlist(db)
  if (entries.length === 0) return { lines: ['the watchlist is empty'], exitCode: 0 }
  return {
    lines: entries.map((e) => `${e.platformUserId}\t${e.reason ?? '-'}\tadded by ${e.addedBy} at ${e.addedAt.toISOString()}`),
    exitCode: 0,
  }
}

/** `presence-link watchlist add ID [--reason R] | remove ID`. */
export async function changeWatchlistCommand(
  ctx: ProcessContext,
  sub: 'add' | 'remove',
  id: string | undefined,
  reason: string | undefined,
): Promise<CommandOutput> {
  const db = await openDatabase(ctx, 2)
  if (id === undefined || !PLATFORM_USER_ID.test(id)) {
    return usage('watchlist takes add ID [--reason TEXT], remove ID (a Roblox user id), or list')
  }
  if (sub === 'remove') return (await removeFromWatchlist(db, id)) ? { lines: [`removed ${id} from the watchlist`], exitCode: 0 } : fail(`${id} is not on the watchlist`)
  if (reason !== undefined && (reason.trim() === '' || reason.length > MAX_WATCH_REASON)) return usage(`--reason must be 1-${MAX_WATCH_REASON} characters`)
  const outcome = await addToWatchlist(db, { platformUserId: id, reason: reason?.trim() ?? null, addedBy: operatorName() })
  return { lines: [outcome === 'added' ? `added ${id} to the watchlist` : `${id} was already on the watchlist; reason updated`], exitCode: 0 }
}

/** `presence-link infractions pardon ID [--reason R]`: the infraction stays in the log but stops counting for safety. */
export async function pardonInfractionCommand(ctx: ProcessContext, id: string | undefined, reason: string | undefined): Promise<CommandOutput> {
  if (id === undefined || !/^[1-9]\d{0,18}$/.test(id)) return usage('infractions pardon needs an infraction ID (a positive whole number, as infractions list shows it)')
  if (reason !== undefined && (reason.trim() === '' || reason.length > MAX_PARDON_REASON)) return usage(`--reason must be 1-${MAX_PARDON_REASON} characters`)
  const db = await openDatabase(ctx, 2)
  const result = await pardonInfraction(db, id, operatorName(), reason?.trim() ?? null)
  if (result.outcome === 'not_found') return fail(`no infraction ${id}`)
  const i = result.infraction
  if (result.outcome === 'already_pardoned') return fail(`infraction ${id} was already pardoned by ${i.pardon?.by ?? '?'}`)
  return { lines: [`pardoned infraction ${id} (${i.eventType} on code ${i.code}, chat user ${i.chatUserId}): kept in the log, no longer counted by the safety check`], exitCode: 0 }
}

/** Longest description `infractions list` shows (the whole text stays in the log entry). */
const LISTED_DESCRIPTION = 120

/** User-supplied text on one line: whitespace and control characters (a terminal's escapes) become one space; long text is cut. */
function oneLine(text: string, max: number): string {
  const chars = Array.from(text.replace(/[\s\p{Cc}]+/gu, ' ').trim())
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max - 1).join('')}…`
}

/** One infraction as `infractions list` prints it: id, when, code, Roblox user, chat user, event, description, issuer, state. */
export function describeInfraction(i: Infraction): string {
  const roblox = i.platformUserId === null ? 'roblox -' : `roblox ${oneLine(i.platformUsername ?? '?', 40)} (${i.platformUserId})`
  const state = i.pardon === null ? 'counting' : `pardoned by ${oneLine(i.pardon.by, 100)} at ${i.pardon.at.toISOString()}`
  return [
    i.id,
    i.createdAt.toISOString(),
    i.code,
    roblox,
    `chat user ${i.chatUserId}`,
    oneLine(i.eventType, 40),
    oneLine(i.description, LISTED_DESCRIPTION),
    `issued by ${i.issuedBy === null ? '-' : oneLine(i.issuedBy, 100)}`,
    state,
  ].join('\t')
}

/** What `infractions list` filters on, as typed. */
export interface InfractionListOptions {
  code: string | undefined
  robloxUser: string | undefined
  chatUser: string | undefined
  before: number | undefined
  limit: number
}

/** `presence-link infractions list [--code CODE] [--roblox-user ID] [--chat-user ID] [--before ID] [--limit N]`, newest first. */
export async function listInfractionsCommand(ctx: ProcessContext, opts: InfractionListOptions): Promise<CommandOutput> {
  const filter: InfractionFilter = {}
  if (opts.code !== undefined) {
    const code = readCodeArgument(opts.code)
    if (code === undefined) return usage('--code needs a CODE of 4 characters A-Z or 0-9 (in any case)')
    filter.code = code
  }
  if (opts.robloxUser !== undefined) {
    if (!PLATFORM_USER_ID.test(opts.robloxUser)) return usage('--roblox-user needs a Roblox user id (a positive whole number)')
    filter.platformUserId = opts.robloxUser
  }
  if (opts.chatUser !== undefined) {
    if (!SNOWFLAKE.test(opts.chatUser)) return usage('--chat-user needs a Discord user id')
    filter.chatUserId = opts.chatUser
  }
  const db = await openDatabase(ctx, 2)
  const shown: Infraction[] = []
  let before = opts.before === undefined ? undefined : String(opts.before)
  let older = false
  while (shown.length < opts.limit) {
    const page = await listInfractions(db, { ...filter, limit: Math.min(MAX_INFRACTION_PAGE, opts.limit - shown.length), ...(before === undefined ? {} : { before }) })
    shown.push(...page.infractions)
    older = page.nextBefore !== null
    if (page.nextBefore === null) break
    before = page.nextBefore
  }
  const total = await countInfractions(db, filter)
  const lines = shown.map(describeInfraction)
  if (total === 0) {
    lines.push('no infractions')
  } else {
    const more = older ? `; older ones: --before ${shown.at(-1)!.id}` : ''
    lines.push(`${total} infraction${total === 1 ? '' : 's'}${shown.length < total ? ` (${shown.length} shown${more})` : ''}`)
  }
  return { lines, exitCode: 0 }
}
