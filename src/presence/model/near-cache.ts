/**
 * The near cache's bookkeeping (pure): a bounded LRU of what a front last read from Redis for each code, and the
 * invalidation generations that keep a read racing a write from caching the older value.
 *
 * A reader takes a `ticket()` before it sends its Redis read and offers the result with `put(code, entry, ticket)`.
 * The put is refused when, since the ticket was taken, that code was invalidated (a feed message named it), everything
 * was (a `*` message, the feed going down or coming back), or the feed is not live. The feed and the read travel on
 * different connections, so a message about a write can arrive before or after the reply of a read that missed it:
 * before, the put is refused; after, the message removes the entry. Either way the stale value does not survive the
 * message.
 *
 * Per-code generations live in a fixed table indexed by a hash of the code: two codes sharing a slot only cost an
 * extra read, and memory does not grow with the number of codes ever invalidated.
 *
 * The view contract: the read path has three memo layers, and this is the one place that says what they rely on.
 * 1. Views are values by identity. `nearView` hands out one view object per entry and liveness, and an entry is
 *    replaced, never changed, when its code changes: the same view object always renders the same blocks.
 * 2. The cache's `version` changes whenever `get` may return another entry for some code.
 * 3. The lookup (src/redis/code-lookup.ts) remembers the views it answered for one codes array wholly from this
 *    cache, under an `AnswerStamp`; while `stampHolds`, it answers those same view objects again (in a new array)
 *    without reading the cache per code.
 * 4. A caller rendering views (the blocks routes, src/http/routes/blocks.ts) keeps its rendered body while
 *    `sameViews` holds between the views it rendered and the views it is given, and asks with the same codes array
 *    again so that (3) applies.
 */
import type { CodeView } from './blocks.js'
import { viewOf, type CachedCode } from '../../codes/model/code-record.js'
import type { PresenceEntry } from './presence-entry.js'

/** What a front keeps for one code: its cached record (undefined when unknown) and its stored presence, if any. */
export interface NearEntry {
  readonly record: CachedCode | undefined
  readonly presence: PresenceEntry | undefined
  /** The views made from this entry so far (presence counted, or not), kept so an unchanged entry gives the same object. */
  liveView?: CodeView
  idleView?: CodeView
}

/** A reader's proof of when it sent its read. */
export type NearTicket = number

/** The cache. */
export interface NearCache {
  /** The entry for `code`, made most recently used; undefined when absent. */
  get(code: string): NearEntry | undefined
  /** Taken before sending a read whose results will be offered to `put`. */
  ticket(): NearTicket
  /** Caches `entry` unless `code` may have changed since `ticket` or the feed is not live; true when cached. */
  put(code: string, entry: NearEntry, ticket: NearTicket): boolean
  /** A feed message named these codes. */
  invalidate(codes: readonly string[]): void
  /** Drops everything (a `*` message); reads in flight will not be cached. */
  invalidateAll(): void
  /** The feed became live (true) or stopped being live (false); either way everything is dropped. */
  setLive(live: boolean): void
  /** Drops the entries whose presence comes from one of `shards` (their liveness changed). */
  dropShards(shards: readonly number[]): void
  /** Entries held. */
  readonly size: number
  /** Entries pushed out by the bound since creation. */
  readonly evictions: number
  /** Whether puts are accepted (the feed is live and the capacity is not 0). */
  readonly live: boolean
  /**
   * Changes whenever what `get` would return may have changed (an accepted put, an eviction, an invalidation, a drop);
   * `get` itself does not change it. A reader seeing the same version sees the same entries.
   */
  readonly version: number
}

/** Slots of the per-code generation table (a power of two). */
export const GENERATION_SLOTS = 1 << 16

function slotOf(code: string): number {
  // FNV-1a over the code's characters; codes are short ASCII strings.
  let h = 0x811c9dc5
  for (let i = 0; i < code.length; i++) h = Math.imul(h ^ code.charCodeAt(i), 0x01000193)
  return (h >>> 0) & (GENERATION_SLOTS - 1)
}

/** Creates a cache holding at most `capacity` entries (0 caches nothing); `onEvict` hears of each eviction. Starts not live. */
export function createNearCache(capacity: number, onEvict?: () => void): NearCache {
  const entries = new Map<string, NearEntry>()
  const slotGeneration = new Float64Array(GENERATION_SLOTS)
  let generation = 0
  let allGeneration = 0
  let live = false
  let evictions = 0
  let version = 0

  const dropAll = () => {
    allGeneration = ++generation
    version++
    entries.clear()
  }

  return {
    get(code) {
      const entry = entries.get(code)
      if (entry !== undefined) {
        // Map keeps insertion order: re-inserting makes the entry the newest, so the first key is the LRU one.
        entries.delete(code)
        entries.set(code, entry)
      }
      return entry
    },
    ticket: () => generation,
    put(code, entry, ticket) {
      if (!live || capacity === 0 || ticket < allGeneration || ticket < slotGeneration[slotOf(code)]!) return false
      version++
      entries.delete(code)
      entries.set(code, entry)
      if (entries.size > capacity) {
        const oldest = entries.keys().next().value as string
        entries.delete(oldest)
        evictions++
        onEvict?.()
      }
      return true
    },
    invalidate(codes) {
      const at = ++generation
      version++
      for (const code of codes) {
        slotGeneration[slotOf(code)] = at
        entries.delete(code)
      }
    },
    invalidateAll: dropAll,
    setLive(next) {
      live = next
      dropAll()
    },
    dropShards(shards) {
      const dropped = new Set(shards)
      version++
      for (const [code, entry] of entries) if (entry.presence !== undefined && dropped.has(entry.presence.shard)) entries.delete(code)
    },
    get size() {
      return entries.size
    },
    get evictions() {
      return evictions
    },
    get live() {
      return live && capacity > 0
    },
    get version() {
      return version
    },
  }
}

/**
 * What a block shows for a cached entry, judging the presence's shard with `isLive` at serve time. The same entry
 * and liveness give the same view object, so callers can tell an unchanged view by identity.
 */
export function nearView(entry: NearEntry, isLive: (shard: number) => boolean): CodeView {
  const { record, presence } = entry
  if (presence !== undefined && record?.state === 'active' && !record.paused && isLive(presence.shard)) {
    return (entry.liveView ??= viewOf(record, presence.activity))
  }
  return (entry.idleView ??= viewOf(record, ''))
}

/** What a lookup's answer for one codes array depended on: the cache's version, the shard marks' version, and the span of time in which no mark lapses. */
export interface AnswerStamp {
  readonly version: number
  readonly marks: number
  readonly from: number
  readonly until: number
}

/** True while an answer stamped `stamp` is still the answer: same cache and marks versions, and `at` within its span. */
export function stampHolds(stamp: AnswerStamp, version: number, marks: number | undefined, at: number): boolean {
  return stamp.version === version && stamp.marks === marks && at >= stamp.from && at < stamp.until
}

/** True when both lists hold the same view objects in the same order: by the view contract, they render the same. */
export function sameViews(a: readonly CodeView[], b: readonly CodeView[]): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
