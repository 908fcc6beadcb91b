/**
 * Notices a Redis connection that went silent and re-makes it. When a path is cut without a FIN or RST (a machine or
 * its link dies, a partition), TCP keeps the connection "open" on both sides: ioredis sees no error, commands wait,
 * and after the path heals the bytes arrive only at TCP's next retransmission, tens of seconds later after a long cut
 * (and never, if the peer gave up meanwhile). On the change feed that is a correctness problem: a front would keep
 * serving views from its near cache while the changes published meanwhile sit in a dead socket.
 *
 * So the connection is asked PING every `everyMs`; one unanswered for `silentAfterMs` means the connection is silent:
 * `onSilent` is called and the socket is destroyed (not ended: a FIN would wait in the dead path too), so ioredis sees
 * it close and re-makes the connection, which ends the feed's liveness through the usual close events and gives a
 * fresh TCP connection as soon as Redis can be reached again. A new connection that is accepted but never gets through
 * its handshake (a hung Redis still accepts in the kernel) is torn down the same way after `silentAfterMs`.
 *
 * Commands sent before the silence are sent again by ioredis on the new connection once it is ready (neither lost nor
 * answered from the dead socket); new commands on a fail-fast connection fail at once meanwhile. Only for connections
 * that never block (not BullMQ's workers, whose blocking commands would hold a PING back for their whole timeout); a
 * subscriber may be probed, PING is allowed there.
 */
import type { Redis } from 'ioredis'

/** How often a connection is probed: one PING a second per connection costs Redis next to nothing. */
export const SILENCE_PROBE_EVERY_MS = 1000
/** A PING unanswered this long means a silent connection: Redis answers PING in well under a millisecond. */
export const SILENT_AFTER_MS = 3000

/** Destroys the socket, so ioredis sees it close and reconnects; `disconnect(true)` would end it and wait 2 s for a FIN. */
function tearDown(redis: Redis): void {
  if (redis.stream) redis.stream.destroy()
  else redis.disconnect(true)
}

/** Options of the watch. */
export interface SilenceWatchOptions {
  everyMs?: number
  silentAfterMs?: number
  /** Called once per silence detected, before the connection is re-made. */
  onSilent?(silentMs: number): void
}

/** Starts probing `redis`; returns a function that stops it (it also stops when the connection ends for good). */
export function reconnectWhenSilent(redis: Redis, opts: SilenceWatchOptions = {}): () => void {
  const everyMs = opts.everyMs ?? SILENCE_PROBE_EVERY_MS
  const silentAfterMs = opts.silentAfterMs ?? SILENT_AFTER_MS
  // What the connection owes an answer to: its handshake while 'connect', a probe while 'ready'. `since` is when the
  // wait began (a handshake is waited for from the first tick that sees it); null when nothing is owed.
  let awaited: { status: 'connect' | 'ready'; since: number } | null = null
  let lastTick = Date.now()
  const timer = setInterval(() => {
    const now = Date.now()
    // Our own event loop was blocked: the answer may be waiting unread, so start the count again.
    const late = now - lastTick > 2 * everyMs
    lastTick = now
    const status = redis.status
    if (status !== 'connect' && status !== 'ready') {
      awaited = null
      return
    }
    if (awaited?.status !== status) awaited = status === 'connect' ? { status, since: now } : null
    if (awaited === null) {
      const probe = { status, since: now }
      awaited = probe
      const answered = () => {
        if (awaited === probe) awaited = null
      }
      redis.ping().then(answered, answered)
      return
    }
    if (late) {
      // The same wait, counted again (a probe's answer read after this tick still clears it).
      awaited.since = now
      return
    }
    if (now - awaited.since < silentAfterMs) return
    // Judged after the I/O phase: an answer already in the socket (our loop was busy) is read first.
    const overdue = awaited
    setImmediate(() => {
      if (awaited !== overdue || redis.status !== overdue.status) return
      awaited = null
      opts.onSilent?.(Date.now() - overdue.since)
      tearDown(redis)
    })
  }, everyMs)
  timer.unref()
  const stop = () => clearInterval(timer)
  redis.once('end', stop)
  return stop
}
