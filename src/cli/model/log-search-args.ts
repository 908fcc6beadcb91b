/**
 * The arguments of `presence-link logs search`, pure: each filter checked as typed (a clear reason when refused), and
 * the times of --since and --until read as an ISO time or an age (15m, 2h, 7d) counted back from `now`.
 */
import { isCode } from '../../codes/model/codes.js'
import type { LogSearchFilter } from '../../mysql/model/log-search.js'
import { isLogCategory, type LogCategoryName } from '../../queue/model/log-categories.js'
import { PLATFORM_USER_ID } from '../../safety/model/watchlist.js'

/** The flags as the command line gives them (limit already a whole number in range). */
export interface LogSearchArguments {
  category?: string | undefined
  eventType?: string | undefined
  robloxUser?: string | undefined
  username?: string | undefined
  code?: string | undefined
  since?: string | undefined
  until?: string | undefined
  before?: number | undefined
  limit: number
}

/** A search read from its arguments: the filter (the cursor comes from `beforeId`, an entry to look up). */
export type ReadSearch = { ok: true; filter: LogSearchFilter; beforeId: string | null } | { ok: false; message: string }

/** What --since and --until take, for the help and the errors. */
export const TIME_ARGUMENT_TEXT = 'an ISO time like 2024-05-01 or 2024-05-01T12:00:00Z, or an age like 30s, 15m, 2h, 7d or 2w'

/** Longest event type stored (as the log request's limit). */
const MAX_EVENT_TYPE = 64

/** Characters no stored label holds: C0 and C1 controls, line and paragraph separators. */
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/

/** A Roblox username, as the log request takes it. */
const ROBLOX_USERNAME = /^[A-Za-z0-9_]{3,20}$/

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

const AGE = /^(\d{1,7})([smhdw])$/

// A date (UTC midnight), or a date and time with Z or an offset. A time without a zone would silently mean the
// machine's zone, so it is refused with a hint.
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-](\d{2}):(\d{2})))?$/
const ZONELESS = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/

// DATETIME holds years 1000-9999; the service writes no time before 1970.
const EARLIEST = Date.UTC(1970, 0, 1)
const LATEST = Date.UTC(10000, 0, 1) - 1

/**
 * A time as --since and --until take it: the instant, or why not (`problem`: what is wrong with a text that looks
 * like a time, or null when it is not one at all).
 */
export function parseSearchTime(text: string, now: Date): { ok: true; at: Date } | { ok: false; problem: string | null } {
  const age = AGE.exec(text)
  const ms = age !== null ? now.getTime() - Number(age[1]) * UNIT_MS[age[2]!]! : isoInstant(text)
  if (ms === null) return { ok: false, problem: ZONELESS.test(text) ? 'has no zone: add Z (UTC) or an offset like +02:00' : null }
  if (ms < EARLIEST || ms > LATEST) return { ok: false, problem: 'is out of range (1970 to 9999)' }
  return { ok: true, at: new Date(ms) }
}

/** The instant of an ISO time, or null when the text is not one or names a date or time that does not exist. */
function isoInstant(text: string): number | null {
  const m = ISO_TIME.exec(text)
  if (m === null) return null
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  // Date.parse rolls 2024-02-30 over into March; a calendar date that does not exist is refused instead.
  const date = new Date(Date.UTC(year, month - 1, day))
  if (month < 1 || month > 12 || date.getUTCDate() !== day) return null
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59)) return null
  if (m[8] !== undefined && (Number(m[8]) > 14 || Number(m[9]) > 59)) return null
  const ms = Date.parse(m[4] === undefined ? `${text}T00:00:00Z` : text)
  return Number.isNaN(ms) ? null : ms
}

/** One argument read: its value, or why it is refused. */
type Read<T> = { ok: true; value: T } | { ok: false; problem: string }

function accept<T>(value: T): Read<T> {
  return { ok: true, value }
}

function refuse(problem: string): Read<never> {
  return { ok: false, problem }
}

function readCategory(typed: string): Read<LogCategoryName> {
  return isLogCategory(typed) ? accept(typed) : refuse('--category needs server, ingame or moderation')
}

function readEventType(typed: string): Read<string> {
  const type = typed.trim()
  if (type === '' || type.length > MAX_EVENT_TYPE || CONTROL.test(typed)) return refuse(`--event-type needs an event type: 1-${MAX_EVENT_TYPE} characters, no control characters`)
  return accept(type)
}

function readRobloxUser(typed: string): Read<string> {
  return PLATFORM_USER_ID.test(typed) ? accept(typed) : refuse('--roblox-user needs a Roblox user id (a positive whole number)')
}

function readUsername(typed: string): Read<string> {
  return ROBLOX_USERNAME.test(typed) ? accept(typed) : refuse('--username needs a Roblox username: 3-20 letters, digits or _')
}

/** A CODE in any case (only ASCII letters are raised: toUpperCase would turn `ı` into `I`). */
function readCode(typed: string): Read<string> {
  const code = typed.replace(/[a-z]/g, (c) => c.toUpperCase())
  return isCode(code) ? accept(code) : refuse('--code needs a CODE of 4 characters A-Z or 0-9 (in any case)')
}

function timeReader(flag: string, now: Date): (typed: string) => Read<Date> {
  return (typed) => {
    const time = parseSearchTime(typed, now)
    if (time.ok) return accept(time.at)
    return refuse(time.problem === null ? `--${flag} needs ${TIME_ARGUMENT_TEXT}, not ${JSON.stringify(typed)}` : `--${flag} ${JSON.stringify(typed)} ${time.problem}`)
  }
}

/** Reads the arguments of a search, in the order of its help; the first refused one gives the reason. `now` anchors the ages. */
export function readSearchArguments(args: LogSearchArguments, now: Date): ReadSearch {
  const filter: LogSearchFilter = { limit: args.limit }
  let problem: string | null = null
  const take = <T>(typed: string | undefined, read: (typed: string) => Read<T>, set: (value: T) => void): void => {
    if (typed === undefined || problem !== null) return
    const r = read(typed)
    if (r.ok) set(r.value)
    else problem = r.problem
  }
  take(args.category, readCategory, (v) => {
    filter.category = v
  })
  take(args.eventType, readEventType, (v) => {
    filter.eventType = v
  })
  take(args.robloxUser, readRobloxUser, (v) => {
    filter.platformUserId = v
  })
  take(args.username, readUsername, (v) => {
    filter.platformUsername = v
  })
  take(args.code, readCode, (v) => {
    filter.code = v
  })
  take(args.since, timeReader('since', now), (v) => {
    filter.since = v
  })
  take(args.until, timeReader('until', now), (v) => {
    filter.until = v
  })
  if (problem !== null) return { ok: false, message: problem }
  if (filter.since !== undefined && filter.until !== undefined && filter.since >= filter.until) {
    return { ok: false, message: `--since (${filter.since.toISOString()}) must be before --until (${filter.until.toISOString()})` }
  }
  return { ok: true, filter, beforeId: args.before === undefined ? null : String(args.before) }
}
