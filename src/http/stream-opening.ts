/**
 * What the two stream routes (routes/sse.ts, routes/ws.ts) share, in one place: the checks of an opening (the
 * callbacks rate limit, the view, open streams per client, subscriptions per stream and per front worker, the
 * admission of codes), the counts behind those limits, the heartbeat of every open stream and the close of them all
 * at shutdown.
 */
import type { Config } from '../config.js'
import type { Logger } from '../lib/logger.js'
import { parseStreamView, streamOpenRefusal, subscriptionRefusal, type StreamView } from '../streams/model/stream-protocol.js'
import type { StreamHub } from '../streams/stream-hub.js'
import { createStreamHeartbeats } from '../streams/stream-heartbeats.js'
import type { StreamKind, StreamObserver } from './front-observer.js'
import { ErrorCode } from './model/error-codes.js'
import { textError, type Reply } from './respond.js'
import type { HttpRequest, RequestCtx, RouteKit } from './route-kit.js'

/** How long a cut-off slow consumer may go without reading before its connection is closed. */
export const SLOW_CONSUMER_GRACE_MS = 5000

/** The longest a cut-off slow consumer that keeps reading, however slowly, may take to read what waits for it. */
export const SLOW_CONSUMER_MAX_GRACE_MS = 30_000

/**
 * The grace of a stream cut off as a slow consumer: `close` runs once the client has read nothing for
 * SLOW_CONSUMER_GRACE_MS, and about SLOW_CONSUMER_MAX_GRACE_MS after the cut at the latest. Counting from the last
 * progress rather than from the cut gives a client that was only slow (or a machine that was busy) its last message.
 */
export function slowConsumerGrace(close: () => void): { progress(): void; stop(): void } {
  const latest = Date.now() + SLOW_CONSUMER_MAX_GRACE_MS
  const timer = setTimeout(close, SLOW_CONSUMER_GRACE_MS)
  timer.unref()
  return {
    progress() {
      if (Date.now() + SLOW_CONSUMER_GRACE_MS <= latest) timer.refresh()
    },
    stop: () => clearTimeout(timer),
  }
}

/** The stream hub and its hooks, built by the front's runtime. */
export interface StreamDeps {
  hub: StreamHub
  observer?: StreamObserver
  /** Receives the function that closes every open stream (for the shutdown registry). */
  registerClose?(close: () => void): void
}

/** One open stream, as the heartbeat and the shutdown see it. */
export interface OpenStream {
  heartbeat(): void
  end(): void
}

/** The shared part of the stream routes of one front worker. */
export interface StreamOpening {
  config: Config
  log: Logger
  hub: StreamHub
  observer: StreamObserver | undefined
  /**
   * The checks of an opening, in order: the callbacks rate limit, `?view=`, the codes path when there is one (at most
   * STREAM_MAX_CODES), open streams of the client, the worker's subscriptions, and the admission of the codes.
   */
  check(req: HttpRequest, ctx: RequestCtx, codesPath?: string): Promise<Reply | { view: StreamView; codes: string[] }>
  /** Why `adding` more codes are refused for a stream holding `held`, or null (STREAM_MAX_CODES, STREAM_MAX_SUBSCRIPTIONS). */
  subscriptionRefusal(held: number, adding: number): { code: ErrorCode; status: number; message: string } | null
  /** Counts a stream of `client` against its limit (from the moment it is accepted). */
  take(client: string): void
  /** Adds or (negative) removes code subscriptions of this worker. */
  reserve(subscriptions: number): void
  /** An accepted stream is open: heartbeats reach it and shutdown ends it. */
  opened(kind: StreamKind, stream: OpenStream): void
  /** An open stream of `client` is gone, with its `subscriptions` codes. */
  closed(kind: StreamKind, client: string, stream: OpenStream, subscriptions: number): void
  /** The reply refusing a stream or a subscription, heard by the observer. */
  refused(kind: StreamKind, reply: Reply): void
  /** The message of a stream cut off as a slow consumer. */
  slowConsumerMessage(): string
  /** Ends every open stream and stops the heartbeat. */
  closeAll(): void
}

/** Creates the shared part; starts the heartbeat and hands closeAll to `deps.registerClose`. */
export function createStreamOpening(config: Config, log: Logger, kit: RouteKit, deps: StreamDeps): StreamOpening {
  const { hub, observer } = deps
  const perClient = new Map<string, number>()
  let workerSubscriptions = 0
  // Every open stream, with its heartbeat spread over the interval (a round over all of them at once held the loop).
  const open = createStreamHeartbeats<OpenStream>(config.streamHeartbeatMs)

  const opening: StreamOpening = {
    config,
    log,
    hub,
    observer,
    async check(req, ctx, codesPath) {
      // Opening a stream costs what a callbacks request costs, so it spends the callbacks rate limit.
      const limited = await kit.limited('callbacks', ctx)
      if (limited !== null) return limited
      const view = parseStreamView(req.query.view)
      if (view === undefined) return textError(400, ErrorCode.InvalidQuery, 'view must be callbacks or rpc')
      let codes: string[] = []
      if (codesPath !== undefined) {
        const parsed = kit.admission.parse(codesPath, config.streamMaxCodes, 'stream')
        if (!parsed.ok) return parsed.reply
        codes = parsed.codes
      }
      const refusal = streamOpenRefusal(perClient.get(ctx.client) ?? 0, config.streamMaxPerClient)
        ?? (codesPath === undefined ? null : opening.subscriptionRefusal(0, codes.length))
      if (refusal !== null) return textError(refusal.status, refusal.code, refusal.message)
      if (codes.length > 0) {
        const budget = await kit.admission.admit(ctx.client, codes)
        if (budget !== null) return budget.reply
      }
      return { view, codes }
    },
    subscriptionRefusal: (held, adding) => subscriptionRefusal(held, adding, config.streamMaxCodes, workerSubscriptions, config.streamMaxSubscriptions),
    take(client) {
      perClient.set(client, (perClient.get(client) ?? 0) + 1)
    },
    reserve(subscriptions) {
      workerSubscriptions += subscriptions
    },
    opened(kind, stream) {
      open.add(stream)
      observer?.opened?.(kind)
    },
    closed(kind, client, stream, subscriptions) {
      open.remove(stream)
      workerSubscriptions -= subscriptions
      const left = (perClient.get(client) ?? 1) - 1
      if (left <= 0) perClient.delete(client)
      else perClient.set(client, left)
      observer?.closed?.(kind)
    },
    refused(kind, reply) {
      if (reply.error !== undefined) observer?.refused?.(kind, reply.error)
    },
    slowConsumerMessage: () =>
      `this stream was closed: more than ${config.streamMaxBufferedBytes} bytes were waiting to be sent (the client stopped reading); reconnect`,
    closeAll() {
      open.stop()
      for (const stream of open.streams()) stream.end()
    },
  }
  deps.registerClose?.(opening.closeAll)
  return opening
}
