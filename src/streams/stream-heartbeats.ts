/**
 * The heartbeat of a front worker's open streams, spread over the interval: each stream gets one heartbeat every
 * `intervalMs`, but the streams are split into groups, one group per tick of about TICK_MS, so no turn of the event
 * loop writes to every stream at once.
 *
 * Why: with 10,000 streams open, one loop over all of them (SSE comment writes and WebSocket pings) held the event loop
 * for 200 ms and more, and a presence change arriving meanwhile reached its streams that much later (issue 23,
 * BENCHMARKS.md "Streams"). Spread over 150 ticks of 100 ms, a tick heartbeats about 67 of them.
 */

/** Anything that takes a heartbeat. */
export interface Heartbeating {
  heartbeat(): void
}

/** The heartbeats of a set of streams. */
export interface StreamHeartbeats<S extends Heartbeating> {
  /** Starts heartbeating `stream`, added once (its first heartbeat comes within one interval). */
  add(stream: S): void
  /** Stops heartbeating `stream`. */
  remove(stream: S): void
  /** Every stream heartbeated now. */
  streams(): S[]
  /** Stops the timer. */
  stop(): void
}

/** About how often a group gets its heartbeats. */
export const TICK_MS = 100

/** Starts the timer: `intervalMs / TICK_MS` groups (at least one), one heartbeated per tick. */
export function createStreamHeartbeats<S extends Heartbeating>(intervalMs: number): StreamHeartbeats<S> {
  const slices = Math.max(1, Math.round(intervalMs / TICK_MS))
  const groups = Array.from({ length: slices }, () => new Set<S>())
  let tick = 0
  const timer = setInterval(() => {
    tick = (tick + 1) % slices
    for (const stream of groups[tick]!) stream.heartbeat()
  }, intervalMs / slices)
  timer.unref()
  return {
    add(stream) {
      // The smallest group, so the groups stay even as streams come and go.
      let smallest = groups[0]!
      for (const group of groups) if (group.size < smallest.size) smallest = group
      smallest.add(stream)
    },
    remove(stream) {
      // A scan of the groups (150 at the default interval) rather than a map from stream to group: a stream closes
      // once, and the map would cost every open stream another entry.
      for (const group of groups) if (group.delete(stream)) return
    },
    streams: () => groups.flatMap((group) => [...group]),
    stop: () => clearInterval(timer),
  }
}
