/**
 * What kept one process's event loop from running, with wall-clock times so that two processes' records line up: its
 * garbage collections (perf_hooks 'gc' entries), its stalls (a 10 ms timer that ran late by more than 20 ms) and
 * the event-loop delay histogram (monitorEventLoopDelay). The stream benchmark runs one in its own process and one in
 * the front worker (tools/bench/front-probe.ts), so a late delivery can be laid against both timelines.
 */
import { constants, monitorEventLoopDelay, performance, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** One garbage collection; `at` is wall-clock milliseconds (epoch). */
export interface GcPause {
  at: number
  ms: number
  kind: 'major' | 'minor' | 'incremental' | 'weakcb' | 'other'
}

/**
 * A stretch of at least STALL_MS during which the event loop ran nothing else; `at` is when it began (epoch ms).
 * `cpuMs` is the CPU time the process used meanwhile: near `ms` when it was busy (a GC, a long piece of work), near 0
 * when it was waiting for a core (the machine's other load).
 */
export interface Stall {
  at: number
  ms: number
  cpuMs: number
}

/** Event-loop delay percentiles in milliseconds (monitorEventLoopDelay, 10 ms resolution). */
export interface LoopDelay {
  p50: number
  p99: number
  max: number
}

/** What the recorder saw since its last reset, and the process's memory now. */
export interface LoopRecord {
  since: number
  gc: GcPause[]
  stalls: Stall[]
  delay: LoopDelay
  memory: { rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number }
}

/** A recorder of one process's loop. */
export interface LoopRecorder {
  /** Forgets what was recorded; the next record starts now. */
  reset(): void
  /** What was recorded since the last reset. */
  record(): LoopRecord
  /** Runs a full garbage collection, then returns the record (so `memory` is the live heap). */
  collect(): LoopRecord
  stop(): void
}

const TICK_MS = 10
/** A timer this late means the loop was held that long (a GC, or one long piece of work). */
export const STALL_MS = 20
const KEPT = 20_000

const KINDS: Record<number, GcPause['kind']> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
}

let gcFunction: (() => void) | undefined
/** V8's gc(), made available without --expose-gc on the command line (the front is started by its own scripts). */
function forceGc(): void {
  if (gcFunction === undefined) {
    setFlagsFromString('--expose-gc')
    gcFunction = runInNewContext('gc') as () => void
  }
  gcFunction()
}

/** Starts recording this process's loop now. */
export function createLoopRecorder(): LoopRecorder {
  const epoch = (t: number) => performance.timeOrigin + t
  let since = Date.now()
  let gc: GcPause[] = []
  let stalls: Stall[] = []
  const histogram = monitorEventLoopDelay({ resolution: TICK_MS })
  histogram.enable()
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // Node 16+ puts the collection's kind in `detail` (the older `kind` field is deprecated).
      const kind = ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail)?.kind ?? -1
      if (gc.length < KEPT) gc.push({ at: epoch(entry.startTime), ms: entry.duration, kind: KINDS[kind] ?? 'other' })
    }
  })
  observer.observe({ entryTypes: ['gc'] })
  const cpuMs = () => {
    const u = process.cpuUsage()
    return (u.user + u.system) / 1000
  }
  let last = performance.now()
  let lastCpu = cpuMs()
  const ticker = setInterval(() => {
    const now = performance.now()
    const cpu = cpuMs()
    const late = now - last - TICK_MS
    // The CPU used over the whole gap, less what the tick's own interval would hold at most.
    if (late > STALL_MS && stalls.length < KEPT) stalls.push({ at: epoch(last + TICK_MS), ms: late, cpuMs: Math.max(0, Math.min(late, cpu - lastCpu)) })
    last = now
    lastCpu = cpu
  }, TICK_MS)
  ticker.unref()

  const record = (): LoopRecord => {
    const m = process.memoryUsage()
    return {
      since,
      gc: [...gc],
      stalls: [...stalls],
      delay: { p50: histogram.percentile(50) / 1e6, p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6 },
      memory: { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers },
    }
  }
  return {
    reset() {
      since = Date.now()
      gc = []
      stalls = []
      histogram.reset()
    },
    record,
    collect() {
      forceGc()
      return record()
    },
    stop() {
      clearInterval(ticker)
      observer.disconnect()
      histogram.disable()
    },
  }
}
