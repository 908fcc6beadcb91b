/**
 * What a route family sees of the front (src/http/routes/*): a router to register on (`HttpApp`), a view of each
 * request (`HttpRequest`), replies as values (`Reply`, respond.ts) and the shared machinery (`RouteKit`: limits,
 * auth, JSON bodies, validation, the admission of codes). The pipeline (pipeline.ts) implements all of it over the
 * HTTP library, so no route family imports that library.
 */
import type * as v from 'valibot'
import type { ErrorCode } from './model/error-codes.js'
import type { CodeView } from '../presence/model/blocks.js'
import type { LimitedRoute, RateLimitState, UnitBudget, WindowSlots } from '../redis/rate-limits.js'
import type { Reply } from './respond.js'

/** One request as a route sees it; read it before the first await (the library may reuse what lies behind it). */
export interface HttpRequest {
  /** Request headers by lower-case name. */
  readonly headers: Readonly<Record<string, string | undefined>>
  /** Path parameters of the route pattern, undecoded. */
  readonly params: Readonly<Record<string, string | undefined>>
  /** Query parameters, decoded. */
  readonly query: Readonly<Record<string, string | undefined>>
  /** The whole body as it arrives (the kit's readJson bounds its size and time). */
  body(): Promise<Buffer>
}

/** The per-request context the pipeline builds. */
export interface RequestCtx {
  route: string
  requestId: string
  ip: string
  /** The key of the per-client limits: the IPv4 address or the IPv6 /64 of `ip` (http/model/client-key.ts). */
  client: string
  /** Where the rate limiter keeps this client's windows between its requests (absent when the front does not remember the client). */
  limitSlots?: WindowSlots
  started: bigint
  /** Whether the route answers errors in plain text (callbacks, rpc, streams) rather than JSON. */
  text: boolean
  /** Where the client stands in the route's limit, set by the rate-limit check: its RateLimit-* headers go on whatever the reply is. */
  limit?: RateLimitState
  /** The name of the valid API key the request presented (set by `keyed`), for usage per key. */
  keyName?: string
}

/** A route's handler: a reply for every request (a throw is mapped to 500 or 503 by the pipeline). */
export type RouteHandler = (req: HttpRequest, ctx: RequestCtx) => Promise<Reply>

/** How the pipeline treats a route. */
export interface RouteOptions {
  /** Errors in plain text (callbacks, rpc) instead of JSON. */
  text?: boolean
  /** Served while Redis is down (health checks); every other route then answers 503 at once. */
  withoutRedis?: boolean
}

/** An open server-sent events response. */
export interface EventStream {
  /** Queues `chunk`; `written` runs once the library has handed it to the socket. */
  write(chunk: string, written: () => void): void
  /** Ends the response after what is queued. */
  end(): void
  /** Closes the connection at once, unless it is already gone. */
  close(): void
  /** Runs once when the connection is gone, whoever closed it. */
  onClose(listener: () => void): void
}

/** An accepted WebSocket connection. */
export interface WebSocketConnection {
  send(text: string): void
  ping(): void
  close(status: number, reason: string): void
  /** Bytes waiting to be sent. */
  readonly buffered: number
  on(event: 'message', listener: (text: string) => void): void
  on(event: 'close' | 'drain', listener: () => void): void
}

/** A stream route's decision: a refusal, or how to open the stream once the pipeline knows the client is still there. */
export type EventStreamOutcome = Reply | { headers: Record<string, string>; open(stream: EventStream): void }

/** A WebSocket upgrade's decision: a refusal, or the context to upgrade with (called only when the upgrade happens). */
export type UpgradeOutcome<C> = Reply | { accept(): C }

/** Limits of a WebSocket route. */
export interface WebSocketOptions {
  idleSeconds: number
  maxPayloadBytes: number
  /** Bytes the library buffers for a connection before it drops messages. */
  maxBackpressureBytes: number
}

/** Options of a long-lived route (SSE or WebSocket upgrade). */
export interface StreamRouteOptions {
  /** The `route` of its context and logs. */
  route: string
  /** Hears every refusal sent (a reply with an error code). */
  refused?(reply: Reply): void
}

/** The router a route family registers on. */
export interface HttpApp {
  get(path: string, route: string, handler: RouteHandler, options?: RouteOptions): void
  post(path: string, route: string, handler: RouteHandler, options?: RouteOptions): void
  /** A GET answered as server-sent events; refusals are plain text, with no rate-limit headers. */
  eventStream(path: string, options: StreamRouteOptions, handler: (req: HttpRequest, ctx: RequestCtx) => Promise<EventStreamOutcome>): void
  /** A WebSocket route: the upgrade decides, `open` runs for each connection with the context accepted. */
  webSocket<C>(
    path: string,
    options: StreamRouteOptions & WebSocketOptions,
    upgrade: (req: HttpRequest, ctx: RequestCtx) => Promise<UpgradeOutcome<C>>,
    open: (connection: WebSocketConnection, context: C) => void,
  ): void
}

/** Why the unknown-code budget refused codes. */
export interface BudgetRefusal {
  code: ErrorCode
  status: number
  message: string
  retryAfterSeconds: number
  /** The first refusal of this client in its window, across fronts (counted once by metrics). */
  firstRefusal: boolean
  /** The plain-text 429 with Retry-After. */
  reply: Reply
}

/** The one admission of codes, for callbacks, rpc, SSE and WebSocket subscriptions (admission.ts). */
export interface CodesAdmission {
  /** Reads a codes path (at most `maxCodes`); a plain-text 400 when unusable. `perWhat` names the maximum's unit. */
  parse(raw: string, maxCodes: number, perWhat?: 'request' | 'stream'): { ok: true; codes: string[] } | { ok: false; reply: Reply }
  /**
   * Looks `codes` up and spends `client`'s unknown-code budget on the unknown ones: the views, or the refusal. Pass
   * the same `codes` array again for the same path: the lookup then answers unchanged views without reading the near
   * cache per code (the view contract, presence/model/near-cache.ts).
   */
  admitViews(client: string, codes: readonly string[]): Promise<{ ok: true; views: CodeView[] } | { ok: false; refusal: BudgetRefusal }>
  /** As admitViews for a caller that needs no views (streams): without a budget to spend nothing is looked up. */
  admit(client: string, codes: readonly string[]): Promise<BudgetRefusal | null>
}

/** The front's shared route machinery, built by createPipeline. */
export interface RouteKit {
  /** Spends the client's rate limit of `route`; the 429 (text or JSON, as `ctx` says) or null. Sets ctx.limit. */
  limited(route: LimitedRoute, ctx: RequestCtx): Promise<Reply | null>
  /** Spends `units` of the client's `budget` (all or none): the JSON 429 naming the budget, or null. */
  spendUnits(budget: UnitBudget, ctx: RequestCtx, units: number): Promise<Reply | null>
  /** Checks the bearer key. */
  authorize(req: HttpRequest): Promise<{ ok: true; keyName: string; keyId: string } | { ok: false; reply: Reply }>
  /**
   * Reads a JSON body of at most `maxBytes` (MAX_BODY_BYTES by default): 415, 411, 413, 400 (incomplete) and 422 (not
   * JSON) as replies; a leading UTF-8 BOM is skipped. `bytes` is the body's length as received.
   */
  readJson(req: HttpRequest, maxBytes?: number): Promise<{ ok: true; value: unknown; bytes: number } | { ok: false; reply: Reply }>
  /** Validates a JSON object against `schema`: 422 with the field issues. */
  validateBody<S extends v.GenericSchema>(schema: S, value: unknown): { ok: true; value: v.InferOutput<S> } | { ok: false; reply: Reply }
  /** The opening of every keyed route, in its order: the rate limit of `route` (429), then the bearer key (401). */
  keyed(route: LimitedRoute, req: HttpRequest, ctx: RequestCtx): Promise<{ ok: true; keyName: string; keyId: string } | { ok: false; reply: Reply }>
  /** readJson then validateBody: the body as `schema` reads it, or the reply of the first step that refused it. */
  readBody<S extends v.GenericSchema>(req: HttpRequest, schema: S): Promise<{ ok: true; value: v.InferOutput<S> } | { ok: false; reply: Reply }>
  admission: CodesAdmission
}
