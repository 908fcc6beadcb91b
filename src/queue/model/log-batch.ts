/**
 * Log events in batches, pure: the payload of a `log-batch` job (events the front accepted together, each under its
 * own event id), the bounds of a front batch and of one multi-row INSERT, the conservative size of an entry in that
 * INSERT, and the bisection that finds the entries MySQL refuses (a poison entry) without failing the others.
 */
import * as v from 'valibot'

/**
 * An event's id: the job id it would have had alone (a UUID, `idem-` + 64 hex digits, `threat-...`). The stored
 * entry's dedupe key is `job:{queue}:{id}`, within `log_entries.dedupe_key`'s 100 ASCII characters; no `:`, which
 * BullMQ refuses in a job id (a poison event is re-queued as a job of its own under this id).
 */
export const EventIdSchema = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]{1,80}$/, 'an event id is 1-80 letters, digits, _ . -'))

/**
 * A `log-batch` job: events in the order the front accepted them. Each event is checked on its own against the log
 * job schema by the worker, so one malformed event fails alone.
 */
export const LogBatchSchema = v.object({
  events: v.pipe(v.array(v.object({ id: EventIdSchema, event: v.unknown() })), v.minLength(1, 'a batch holds at least one event')),
})

/**
 * An event id that sorts by the time it was made: the epoch milliseconds as 12 hex digits, then the random part of a
 * version 4 UUID (`-4xxx-yxxx-xxxxxxxxxxxx`, 74 random bits). The stored entry's unique dedupe key is made of it, and
 * keys that rise with time are inserted at the right edge of that index instead of at random places in it: in groups
 * of 1,000 rows, MariaDB spent 1.5-4 µs less per row, more as the table grew (a random key's page is ever less likely
 * to be in memory on a large table).
 */
export function timeOrderedEventId(nowMs: number, uuid: string): string {
  return `${Math.max(0, Math.floor(nowMs)).toString(16).padStart(12, '0')}${uuid.slice(13)}`
}

/** A `log-batch` job's payload. */
export type LogBatch = v.InferOutput<typeof LogBatchSchema>

/**
 * The front sends a batch once the previous one is in Redis (one add in flight per front process), so a batch holds
 * at least what arrived during one round trip; an idle front writes at once. These bound it under a burst.
 */
export const FRONT_BATCH_MAX_EVENTS = 500

/**
 * A busy front's batch of fewer events than this waits for more, up to FRONT_BATCH_LINGER_MS after the previous
 * write started. A job costs Redis and the worker far more than one more event in it (BullMQ's add, fetches and
 * completion): at 1,000 single events a second without the linger each event was a job, at about twice the CPU per
 * event (docs/decisions.md, "single events at moderate load").
 */
export const FRONT_BATCH_MIN_EVENTS = 64

/**
 * The longest a busy front holds a small batch, counted from the start of the previous write, so at most this much is
 * added to a log request's answer (an idle front, with no write this recent, does not wait). It bounds a front
 * process's small log jobs to 1000 / FRONT_BATCH_LINGER_MS a second.
 */
export const FRONT_BATCH_LINGER_MS = 10

/** Bound of a front batch's events in bytes (by entryBytes), so one job stays small for Redis and the worker. */
export const FRONT_BATCH_MAX_BYTES = 2 * 1024 * 1024

/** Most rows in one multi-row INSERT of the worker's group commit. */
export const GROUP_MAX_ROWS = 1000

/**
 * A group of fewer rows waits up to GROUP_LINGER_MS after the previous commit for more. MySQL's work per row falls
 * with the group's size (the transaction, its commit and the statement's parsing are shared by its rows), and so
 * does the worker's; under a steady load the groups were about 60 rows. Entries are stored that much later at most;
 * their requests were answered when they were queued, so no client waits for it.
 */
export const GROUP_MIN_ROWS = 600

/** How long a small group waits for more rows, counted from the end of the commit before it (see GROUP_MIN_ROWS). */
export const GROUP_LINGER_MS = 60

/** The packet size assumed when the server's max_allowed_packet cannot be read (MySQL 5.6's default is 4 MiB). */
export const FALLBACK_MAX_ALLOWED_PACKET = 4 * 1024 * 1024

/**
 * The bytes one group's INSERT may take: half the server's max_allowed_packet (the infractions' INSERT and the
 * statement text come on top), at most 8 MiB, at least 64 KiB.
 */
export function groupByteBudget(maxAllowedPacket: number): number {
  const half = Math.floor((Number.isFinite(maxAllowedPacket) && maxAllowedPacket > 0 ? maxAllowedPacket : FALLBACK_MAX_ALLOWED_PACKET) / 2)
  return Math.min(8 * 1024 * 1024, Math.max(64 * 1024, half))
}

/** The text fields of an entry, as entryBytes reads them. */
export interface SizedEntry {
  eventType: string
  description: string
  platformUsername?: string | null
  issuedBy?: string | null
  source: string
  sourceIp?: string | null
  data?: unknown
}

// Quotes, commas, the numbers and dates of a row, and the dedupe key: generous.
const ROW_OVERHEAD = 256

/**
 * An upper bound of an entry's bytes in the INSERT statement: 3 bytes per UTF-16 unit covers UTF-8 (at most 3 bytes
 * per unit) and escaping (an escaped character is ASCII, 2 bytes). `data` is counted by its JSON.
 */
export function entryBytes(e: SizedEntry): number {
  const texts = [e.eventType, e.description, e.platformUsername, e.issuedBy, e.source, e.sourceIp]
  let units = 0
  for (const text of texts) units += text?.length ?? 0
  if (e.data !== undefined) units += JSON.stringify(e.data)?.length ?? 0
  return ROW_OVERHEAD + 3 * units
}

/**
 * How many of `sizes` (in order) fit in `maxCount` and `maxBytes`. With `atLeastOne` (a group still empty) the first
 * is taken whatever its size: an entry larger than the budget goes alone, and MySQL takes or refuses it on its own.
 */
export function takeCount(sizes: readonly number[], maxCount: number, maxBytes: number, atLeastOne = true): number {
  let bytes = 0
  let n = 0
  for (const size of sizes) {
    if (n >= maxCount || ((n > 0 || !atLeastOne) && bytes + size > maxBytes)) break
    bytes += size
    n++
  }
  return n
}

/** An item the store refused on its own, with the error it gave. */
export interface Poisoned<T> {
  item: T
  error: unknown
}

/**
 * Stores `items` with `attempt` (all or nothing per call), isolating the ones it refuses: the whole list first, then
 * on a refusal each half in order, down to single items, so a poison item costs about 2 log2(n) attempts and every
 * other item is stored, in its order. An error `mustAbort` accepts (an outage: splitting cannot help) ends it at once
 * and is thrown; halves stored before it stay stored. Returns the refused items with their errors.
 */
export async function storeIsolating<T>(
  items: readonly T[],
  attempt: (part: readonly T[]) => Promise<void>,
  mustAbort: (err: unknown) => boolean,
): Promise<Poisoned<T>[]> {
  const poisoned: Poisoned<T>[] = []
  const run = async (part: readonly T[]): Promise<void> => {
    if (part.length === 0) return
    try {
      await attempt(part)
    } catch (err) {
      if (mustAbort(err)) throw err
      if (part.length === 1) {
        poisoned.push({ item: part[0]!, error: err })
        return
      }
      const middle = Math.ceil(part.length / 2)
      await run(part.slice(0, middle))
      await run(part.slice(middle))
    }
  }
  await run(items)
  return poisoned
}
