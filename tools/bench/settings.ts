/** Every knob of `npm run bench`, in one place; the report writes them into BENCHMARKS.md. */

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
  logEvents: number
  logConnections: number
  memoryUsers: number
  frontWorkers: number
  propagationUpdates: number
  gatewayMembers: readonly number[]
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
  logEvents: 12_000,
  logConnections: 50,
  memoryUsers: 1000,
  frontWorkers: 1,
  propagationUpdates: 300,
  gatewayMembers: [10_000, 100_000],
}
