/**
 * The stream hub of one front worker: which open stream follows which code, and the fan-out of block changes.
 *
 * Each followed code has one entry holding its last rendered blocks (callbacks and rpc) and its subscribers with the
 * text each was last sent; a subscriber is pushed a block only when it differs from what it last got, so a feed
 * message that changed nothing visible sends nothing.
 * Blocks are read with the front's lookup, the same one callbacks and rpc use. What to read again comes from:
 * - the change feed: the codes it names (or every followed code for `*`), batched per event-loop turn;
 * - the feed turning live again after a loss: anything may have changed meanwhile, so every followed code;
 * - the shard marks watcher: a shard's liveness lapsing, dying or coming back is announced nowhere, so every code;
 * - a timer while the feed is not live, so streams stay correct (seconds late) while it is down.
 * Reads of one code can overlap; each carries a sequence number and an older read never overwrites a newer one
 * (the lookup sends its commands in order on one connection, so a read sent later sees a later state).
 */
import { renderCallbackBlock, renderRpcBlock, type CodeView } from '../presence/model/blocks.js'
import type { StreamView } from './model/stream-protocol.js'
import type { ChangeFeed } from '../redis/change-feed.js'
import type { CodeLookup } from '../redis/code-lookup.js'
import type { ShardMarks } from '../redis/shard-marks.js'
import type { Logger } from '../lib/logger.js'

/** One open stream as the hub sees it. */
export interface StreamSink {
  readonly view: StreamView
  /** Sends one block; called only when it differs from the last block this sink got for `code`. */
  push(code: string, block: string): void
}

/** The hub. */
export interface StreamHub {
  /** Follows `codes` for `sink`; resolves once each has been read at least once since (its block pushed if new). */
  subscribe(sink: StreamSink, codes: readonly string[]): Promise<void>
  /** Stops following `codes` for `sink`. */
  unsubscribe(sink: StreamSink, codes: readonly string[]): void
  /** Code subscriptions held (codes summed over sinks). */
  readonly subscriptions: number
  /** Distinct codes followed. */
  readonly codes: number
  /** Stops the timers and listeners. */
  close(): void
}

/** What the hub needs. */
export interface StreamHubOptions {
  lookup: CodeLookup
  feed?: Pick<ChangeFeed, 'live' | 'onChange' | 'onLive'>
  marks?: Pick<ShardMarks, 'onTransition'>
  /** How often every followed code is read again while the feed is not live. */
  resyncMs?: number
  /** Codes per lookup when many are read at once. */
  batchSize?: number
  /** Where a failed read is logged (debug: the outage itself is logged once by the connection watch; the hub retries). */
  log?: Pick<Logger, 'debug'>
}

interface Entry {
  callbacks: string | undefined
  rpc: string | undefined
  subs: Map<StreamSink, string | null>
  sentSeq: number
  appliedSeq: number
}

const RENDER: Record<StreamView, (code: string, view: CodeView) => string> = { callbacks: renderCallbackBlock, rpc: renderRpcBlock }
const RETRY_MS = 1000

/**
 * Applies read number `seq` of `code` to its entry (unless a newer read was applied already): each subscriber is pushed
 * its view's block if it differs from what it last got, and the entry keeps the blocks rendered.
 */
function apply(code: string, entry: Entry, seq: number, view: CodeView): void {
  if (seq <= entry.appliedSeq) return
  entry.appliedSeq = seq
  let callbacks: string | undefined
  let rpc: string | undefined
  for (const [sink, last] of entry.subs) {
    const text = sink.view === 'rpc' ? (rpc ??= RENDER.rpc(code, view)) : (callbacks ??= RENDER.callbacks(code, view))
    if (text !== last) {
      entry.subs.set(sink, text)
      sink.push(code, text)
    }
  }
  entry.callbacks = callbacks ?? RENDER.callbacks(code, view)
  entry.rpc = rpc
}

/** Creates the hub and starts following the feed and the marks. */
export function createStreamHub(opts: StreamHubOptions): StreamHub {
  const entries = new Map<string, Entry>()
  const pending = new Set<string>()
  const batchSize = opts.batchSize ?? 1000
  let subscriptions = 0
  let scheduled = false
  let closed = false

  const read = async (codes: readonly string[]): Promise<void> => {
    const seqs = codes.map((code) => {
      const entry = entries.get(code)
      return entry === undefined ? 0 : ++entry.sentSeq
    })
    let views: CodeView[]
    try {
      views = await opts.lookup(codes)
    } catch (err) {
      opts.log?.debug({ err: (err as Error).message }, 'stream read failed')
      setTimeout(() => mark(codes), RETRY_MS).unref()
      return
    }
    for (let i = 0; i < codes.length; i++) {
      const entry = entries.get(codes[i]!)
      // An entry dropped and made again meanwhile starts its numbering over; its own read is on the way.
      if (entry !== undefined && seqs[i]! > 0 && seqs[i]! <= entry.sentSeq) apply(codes[i]!, entry, seqs[i]!, views[i]!)
    }
  }

  const readInBatches = async (codes: readonly string[]): Promise<void> => {
    const reads: Promise<void>[] = []
    for (let i = 0; i < codes.length; i += batchSize) reads.push(read(codes.slice(i, i + batchSize)))
    await Promise.all(reads)
  }

  const flush = () => {
    scheduled = false
    if (closed || pending.size === 0) return
    const codes = [...pending].filter((code) => entries.has(code))
    pending.clear()
    void readInBatches(codes)
  }
  function mark(codes: Iterable<string>) {
    for (const code of codes) if (entries.has(code)) pending.add(code)
    if (!scheduled && pending.size > 0) {
      scheduled = true
      setImmediate(flush)
    }
  }
  const markAll = () => mark(entries.keys())

  const stops: (() => void)[] = []
  if (opts.feed !== undefined) {
    stops.push(opts.feed.onChange((change) => (change.all ? markAll() : mark(change.codes))))
    stops.push(opts.feed.onLive((live) => live && markAll()))
  }
  if (opts.marks !== undefined) stops.push(opts.marks.onTransition(() => markAll()))
  const resync = setInterval(() => {
    if (opts.feed === undefined || !opts.feed.live) markAll()
  }, opts.resyncMs ?? 2000)
  resync.unref()

  return {
    async subscribe(sink, codes) {
      const fresh: string[] = []
      const live = opts.feed?.live ?? false
      for (const code of codes) {
        let entry = entries.get(code)
        if (entry === undefined) {
          entry = { callbacks: undefined, rpc: undefined, subs: new Map(), sentSeq: 0, appliedSeq: 0 }
          entries.set(code, entry)
        }
        if (entry.subs.has(sink)) continue
        subscriptions++
        const known = sink.view === 'rpc' ? entry.rpc : entry.callbacks
        // While the feed is live a stored block is current (or a read that will correct it is on the way).
        if (known !== undefined && live) {
          entry.subs.set(sink, known)
          sink.push(code, known)
        } else {
          entry.subs.set(sink, null)
          fresh.push(code)
        }
      }
      if (fresh.length > 0) await readInBatches(fresh)
    },
    unsubscribe(sink, codes) {
      for (const code of codes) {
        const entry = entries.get(code)
        if (entry === undefined || !entry.subs.delete(sink)) continue
        subscriptions--
        if (entry.subs.size === 0) entries.delete(code)
      }
    },
    get subscriptions() {
      return subscriptions
    },
    get codes() {
      return entries.size
    },
    close() {
      closed = true
      clearInterval(resync)
      for (const stop of stops) stop()
    },
  }
}
