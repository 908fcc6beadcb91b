/**
 * The front's hooks for metrics (src/metrics/front-metrics.ts implements them): requests, limits, the read path and
 * the streams. Every method is optional; the routes and the pipeline call what is there.
 */
import type { ErrorCode } from './model/error-codes.js'
import type { LimitedRoute } from '../redis/rate-limits.js'
import type { ReadPathObserver } from '../redis/read-path.js'

export type { ReadPathState } from '../redis/read-path.js'

/** Hooks for metrics; every method is optional (the read path's own hooks come from src/redis/read-path.ts). */
export interface FrontObserver extends ReadPathObserver {
  request?(route: string, status: number, seconds: number, error: string | undefined): void
  rateLimited?(route: LimitedRoute): void
  codesPerRequest?(route: 'callbacks' | 'rpc', count: number): void
  /** A client passed its unknown-code budget (called once per client and window, whichever front saw it). */
  unknownCodeBudgetExhausted?(route: 'callbacks' | 'rpc'): void
  bindOutcome?(status: string): void
  /** A log batch or a bind was not confirmed by REDIS_WRITE_REPLICAS replicas in time (answered 503). */
  replicaShortfall?(write: 'log' | 'bind' | 'audit'): void
  /** A request that presented a valid API key: its key's name, route and status (usage per key). */
  keyRequest?(key: string, route: string, status: number): void
}

/** The two kinds of stream (the label `kind` of the stream metrics). */
export type StreamKind = 'sse' | 'ws'

/** Hooks for the stream metrics; every method is optional. */
export interface StreamObserver {
  opened?(kind: StreamKind): void
  closed?(kind: StreamKind): void
  /** Blocks sent on streams. */
  sent?(kind: StreamKind, count: number): void
  slowConsumerCut?(kind: StreamKind): void
  /** A stream or a subscription refused, by error code. */
  refused?(kind: StreamKind, reason: ErrorCode): void
}
