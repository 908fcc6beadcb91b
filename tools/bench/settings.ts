/** Every knob of `npm run bench`, in one place; the report writes them into BENCHMARKS.md. */
import type { StreamSettings } from './measurements/stream-delivery.js'

/** The settings of one `npm run bench` run. */
export interface BenchSettings {
  runs: number
  linkedUsers: number
  connections: number
  pipelining: number
  loadSeconds: number
  warmupSeconds: number
  bindRate: number
  bindSeconds: number
  /** Log events per run of the measurements that post a fixed number (the backlog, replica waits). */
  logEvents: number
  /** Seconds of each single-event ingestion run (wrk runs for a time, not a count). */
  logSeconds: number
  /** Connections posting them: a burst of many game servers flushing what they buffered, as after an outage. */
  logConnections: number
  /** Events per request of the batch measurements (the Roblox module sends at most 100). */
  batchSize: number
  /** Connections posting batches at peak (one request in flight on each). */
  batchConnections: number
  /** Events per peak run of batches. */
  batchEvents: number
  /** Events per second of the moderate load (a game network's normal day), in batches and as single events. */
  moderateRate: number
  /** Seconds of each moderate run. */
  moderateSeconds: number
  memoryUsers: number
  frontWorkers: number
  propagationUpdates: number
  gatewayMembers: readonly number[]
  /** The stream delivery runs (each on a world and front of its own). */
  streams: StreamSettings
}

/** The settings `npm run bench` uses. */
export const SETTINGS: BenchSettings = {
  runs: 3,
  linkedUsers: 50,
  connections: 50,
  pipelining: 1,
  loadSeconds: 5,
  warmupSeconds: 1,
  bindRate: 100,
  bindSeconds: 10,
  logEvents: 60_000,
  logSeconds: 5,
  batchSize: 100,
  batchConnections: 8,
  batchEvents: 300_000,
  moderateRate: 1000,
  moderateSeconds: 15,
  logConnections: 100,
  memoryUsers: 1000,
  frontWorkers: 1,
  propagationUpdates: 300,
  gatewayMembers: [10_000, 100_000],
  streams: { streams: 10_000, codesPerStream: 50, codes: 2000, updates: 40, spacingMs: 250, lateMs: 50 },
}
