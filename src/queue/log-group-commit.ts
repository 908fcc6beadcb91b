/**
 * The worker's group commit of log entries: every log and audit job running in the process hands its entries here,
 * and one transaction at a time stores what is waiting, in the order it was handed in (one multi-row INSERT bounded
 * by rows and by max_allowed_packet), so ids rise in job order. A refused group is bisected: the entries MySQL
 * refuses on their own (poison) are reported to their job while the rest are stored; an outage fails every job of the
 * group (each is retried by BullMQ, and the dedupe keys make the retry store nothing twice). Right after a commit, a
 * group too small to be worth a transaction of its own waits a little for more (minRows, lingerMs), unless the jobs
 * waiting in it are as many as can come at once (maxWaitingJobs); an idle worker stores at once.
 */
import type { Kysely } from 'kysely'
import { readMaxAllowedPacket, type NewLogEntry } from '../mysql/log-entry-rows.js'
import type { Database } from '../mysql/schema.js'
import { createTransactions, type StoredLogEntries } from '../mysql/transactions.js'
import { failureKind } from './model/failure-kind.js'
import type { Logger } from '../lib/logger.js'
import { CONSUMER_CONCURRENCY } from './model/consumer-policy.js'
import { entryBytes, FALLBACK_MAX_ALLOWED_PACKET, GROUP_LINGER_MS, GROUP_MAX_ROWS, GROUP_MIN_ROWS, groupByteBudget, storeIsolating, takeCount, type Poisoned } from './model/log-batch.js'

/** What became of one job's entries. */
export interface GroupCommitOutcome {
  /** Entries stored (by this call or before it). */
  stored: number
  /** Entries this call stored for the first time. */
  created: number
  /** Entries that are infractions. */
  infractions: number
  /** Entries MySQL refused on their own while others were stored, with the error each gave, in order. */
  poisoned: Poisoned<NewLogEntry>[]
}

/** Stores entries through the group commit. */
export interface LogGroupCommit {
  /**
   * Stores `entries` (in order, after everything handed in before) and resolves once all are stored or found
   * poison. Rejects when an outage (or a bug) failed them: with the outage's error, or, when every entry of the
   * group was refused, with the error of this job's first entry.
   */
  store(entries: readonly NewLogEntry[]): Promise<GroupCommitOutcome>
  /** Resolves once nothing is waiting or being stored. */
  idle(): Promise<void>
}

/** Bounds and the store behind a group commit. */
export interface LogGroupCommitOptions {
  /** One transaction over a group (transactions.storeLogEntries). */
  storeLogEntries(entries: readonly NewLogEntry[]): Promise<StoredLogEntries>
  /** Byte budget of one group's INSERT (groupByteBudget of the server's max_allowed_packet). */
  maxBytes: number
  /** Row bound of one group; GROUP_MAX_ROWS by default. */
  maxRows?: number
  /** A group smaller than this waits up to `lingerMs` for more entries (0, the default: it never waits). */
  minRows?: number
  /** How long a group smaller than `minRows` waits for more, counted from when the commit before it ended. */
  lingerMs?: number
  /**
   * A group stops waiting once this many jobs wait in it, however few their entries: the consumers run no more jobs
   * at once, so no more can come, and waiting would only slow a backlog of small jobs down (their concurrency).
   */
  maxWaitingJobs?: number
}

interface Request {
  entries: readonly NewLogEntry[]
  sizes: number[]
  /** Entries not yet taken into a group start here. */
  next: number
  /** Entries whose group has finished. */
  done: number
  outcome: GroupCommitOutcome
  failure: { error: unknown } | null
  resolve(outcome: GroupCommitOutcome): void
  reject(err: unknown): void
}

/** A run of one request's entries inside a group. */
interface Piece {
  request: Request
  from: number
  to: number
}

/** Takes the next group from the head of `waiting` (removing requests whose last entries it takes). */
function takeGroup(waiting: Request[], maxRows: number, maxBytes: number): Piece[] {
  const pieces: Piece[] = []
  let rows = 0
  let bytes = 0
  while (waiting.length > 0 && rows < maxRows) {
    const request = waiting[0]!
    const rest = request.sizes.slice(request.next)
    // A request whose next entry does not fit waits for the next group (an empty group takes it whatever its size).
    const n = takeCount(rest, maxRows - rows, maxBytes - bytes, rows === 0)
    if (n === 0) break
    const to = request.next + n
    pieces.push({ request, from: request.next, to })
    rows += n
    for (let i = request.next; i < to; i++) bytes += request.sizes[i]!
    request.next = to
    if (to < request.entries.length) break
    waiting.shift()
  }
  return pieces
}

function settle(request: Request): void {
  if (request.failure !== null) return request.reject(request.failure.error)
  if (request.done === request.entries.length) request.resolve(request.outcome)
}

function fail(request: Request, error: unknown): void {
  if (request.failure === null) request.failure = { error }
}

/** Stores one group (bisecting a refused one) and records the result in each piece's request. */
async function commit(storeLogEntries: LogGroupCommitOptions['storeLogEntries'], pieces: readonly Piece[]): Promise<void> {
  const items = pieces.flatMap((p) => p.request.entries.slice(p.from, p.to).map((entry, k) => ({ entry, request: p.request, index: p.from + k })))
  const results = new Map<(typeof items)[number], { created: boolean; infraction: boolean }>()
  const attempt = async (part: readonly (typeof items)[number][]) => {
    const stored = await storeLogEntries(part.map((i) => i.entry))
    part.forEach((item, k) => results.set(item, { created: stored.created[k]!, infraction: stored.infraction[k]! }))
  }
  let poisoned: Poisoned<(typeof items)[number]>[]
  try {
    poisoned = await storeIsolating(items, attempt, (err) => failureKind(err) === 'infrastructure')
  } catch (err) {
    for (const p of pieces) fail(p.request, err)
    return
  }
  // Every entry refused on its own: not a poison entry but a failure of all (a table missing, a bug); each job
  // fails as a whole, with its first entry's error, and is retried or parked by BullMQ.
  const systemic = poisoned.length === items.length
  for (const { item, error } of poisoned) {
    if (systemic) fail(item.request, error)
    else item.request.outcome.poisoned.push({ item: item.entry, error })
  }
  for (const [item, r] of results) {
    item.request.outcome.stored++
    if (r.created) item.request.outcome.created++
    if (r.infraction) item.request.outcome.infractions++
  }
}

/** Creates a group commit; one per worker process (the log and audit consumers share it). */
export function createLogGroupCommit(options: LogGroupCommitOptions): LogGroupCommit {
  const maxRows = options.maxRows ?? GROUP_MAX_ROWS
  const minRows = options.minRows ?? 0
  const lingerMs = options.lingerMs ?? 0
  const maxWaitingJobs = options.maxWaitingJobs ?? Number.POSITIVE_INFINITY
  const waiting: Request[] = []
  let running = false
  let idleWaiters: Array<() => void> = []
  // Entries handed in and not yet taken into a group.
  let waitingRows = 0
  let lingering: NodeJS.Timeout | null = null
  // When the last commit ended; a small group waits for more until lingerMs after it.
  let lastEnded = Number.NEGATIVE_INFINITY

  async function run(): Promise<void> {
    while (waiting.length > 0) {
      if (!enough() && performance.now() - lastEnded < lingerMs) break
      const pieces = takeGroup(waiting, maxRows, options.maxBytes)
      for (const p of pieces) waitingRows -= p.to - p.from
      try {
        await commit(options.storeLogEntries, pieces)
      } catch (err) {
        for (const p of pieces) fail(p.request, err)
      }
      lastEnded = performance.now()
      for (const p of pieces) {
        p.request.done += p.to - p.from
        // A failed request takes no further groups; its job is retried whole.
        if (p.request.failure !== null) {
          const at = waiting.indexOf(p.request)
          if (at >= 0) {
            waiting.splice(at, 1)
            waitingRows -= p.request.entries.length - p.request.next
          }
          p.request.done = p.request.entries.length
        }
        if (p.request.done === p.request.entries.length) settle(p.request)
      }
    }
    running = false
    if (waiting.length > 0) return kick()
    const waiters = idleWaiters
    idleWaiters = []
    for (const w of waiters) w()
  }

  /** Enough waits for a group not to wait for more. */
  function enough(): boolean {
    return waitingRows >= minRows || waiting.length >= maxWaitingJobs
  }

  /** Starts a run now, or once the linger after the last commit is over when too little waits. */
  function kick(): void {
    if (running) return
    if (lingering !== null) {
      if (!enough()) return
      clearTimeout(lingering)
      lingering = null
    }
    const wait = enough() ? 0 : lingerMs - (performance.now() - lastEnded)
    if (wait <= 0) {
      running = true
      // The jobs BullMQ hands over in the same turn join the first group.
      setImmediate(() => void run())
      return
    }
    lingering = setTimeout(() => {
      lingering = null
      lastEnded = Number.NEGATIVE_INFINITY
      kick()
    }, wait)
  }

  return {
    store(entries) {
      if (entries.length === 0) return Promise.resolve({ stored: 0, created: 0, infractions: 0, poisoned: [] })
      return new Promise((resolve, reject) => {
        waiting.push({
          entries,
          sizes: entries.map(entryBytes),
          next: 0,
          done: 0,
          outcome: { stored: 0, created: 0, infractions: 0, poisoned: [] },
          failure: null,
          resolve,
          reject,
        })
        waitingRows += entries.length
        kick()
      })
    },
    idle() {
      if (!running && waiting.length === 0) return Promise.resolve()
      return new Promise((resolve) => idleWaiters.push(resolve))
    },
  }
}

/** What a group commit reports of each stored group (the log volume metric). */
export interface StoredVolume {
  stored(entries: readonly NewLogEntry[], created: readonly boolean[]): void
}

/**
 * The group commit the log and audit consumers share, over the database `db`, with the service's settings: groups
 * bounded by the server's max_allowed_packet (read once; FALLBACK_MAX_ALLOWED_PACKET, with a warning, when it cannot
 * be read), small groups lingering a little for more, and as many jobs waiting in a group as both consumers can hand
 * it at once. Each commit's stored entries are counted into `volume`.
 */
export async function openSharedLogCommit(db: Kysely<Database>, log: Logger, volume?: StoredVolume): Promise<LogGroupCommit> {
  const transactions = createTransactions(db)
  const packet = await readMaxAllowedPacket(db).catch((err: Error) => {
    log.warn({ err: err.message, assumed: FALLBACK_MAX_ALLOWED_PACKET }, 'could not read max_allowed_packet')
    return FALLBACK_MAX_ALLOWED_PACKET
  })
  return createLogGroupCommit({
    storeLogEntries: async (entries) => {
      const stored = await transactions.storeLogEntries(entries)
      volume?.stored(entries, stored.created)
      return stored
    },
    maxBytes: groupByteBudget(packet),
    minRows: GROUP_MIN_ROWS,
    lingerMs: GROUP_LINGER_MS,
    // A backlog on either queue fills this many slots at once (the smaller concurrency), so a group never waits while
    // jobs are queued behind the ones waiting in it.
    maxWaitingJobs: Math.min(CONSUMER_CONCURRENCY.log, CONSUMER_CONCURRENCY.audit),
  })
}
