/**
 * The front's hooks for metrics (src/metrics/front-metrics.ts implements them): requests, limits, the read path and
 * the streams. Every method is optional; the routes and the pipeline call what is there.
 */
import type { ErrorCode } from './model/error-codes.js'
import type { LimitedRoute } from '../redis/rate-limits.js'

/** Hooks for metrics; every method is optional. */
export interface FrontObserver {
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
  /** Codes of one callbacks/rpc/stream lookup answered from the near cache and read from Redis. */
  nearCache?(hits: number, misses: number): void
  /** The near cache pushed out its least recently used entry. */
  nearCacheEvicted?(): void
  /** Seconds between a change feed message's writer clock and its arrival at this front. */
  feedLag?(seconds: number): void
  /** Called once at start with a reader of the read path's state, for gauges read at scrape time. */
  readPathState?(state: () => ReadPathState): void
}

/** The read path's state at one moment: near cache entries and whether the change feed is live. */
export interface ReadPathState {
  entries: number
  feedLive: boolean
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
