/**
 * The front's request pipeline, the one place (with server.ts) that touches the HTTP library (hyper-express 6 on
 * uWS): every route gets its request context (request id, client IP and limit key), the request-target check (414),
 * the Redis-down 503, and on the way out the reply written with its headers, the metrics observer and the log line;
 * a handler that throws is mapped here (500 for a bug, 503 for a dependency). Route families get the RouteKit (rate
 * limits with RateLimit-* headers, auth, JSON bodies, validation, the admission of codes) and a router of their own
 * (`HttpApp`), so they never see the library.
 */
import { randomUUID } from 'node:crypto'
import type HyperExpress from 'hyper-express'
import type { Request, Response, Websocket } from 'hyper-express'
import * as v from 'valibot'
import type { KeyVerifier } from '../auth/api-key-service.js'
import type { Config } from '../config.js'
import type { Logger } from '../lib/logger.js'
import { failureKind } from '../queue/model/failure-kind.js'
import type { CodeLookup } from '../redis/code-lookup.js'
import type { RateLimitCheck, RateLimitState, UnitBudgetSpend, WindowSlots } from '../redis/rate-limits.js'
import type { UnknownCodeBudget } from '../redis/unknown-code-budget.js'
import type { UsageRecorder } from '../redis/key-usage.js'
import { createAdmission } from './admission.js'
import type { ClientIpResolver } from './client-ip.js'
import type { FrontObserver } from './front-observer.js'
import { clientKey } from './model/client-key.js'
import { ErrorCode } from './model/error-codes.js'
import { toFieldIssues } from './model/fields.js'
import {
  bodyTooLarge,
  jsonError,
  rateLimitedJson,
  rateLimitedText,
  serviceUnavailable,
  shuttingDown,
  targetTooLong,
  textError,
  unauthorized,
  validationFailed,
  type Reply,
} from './respond.js'
import type { EventStream, HttpApp, HttpRequest, RequestCtx, RouteHandler, RouteKit, WebSocketConnection } from './route-kit.js'

/**
 * Client IP resolutions remembered per front (socket IP and X-Forwarded-For pairs); the table is emptied when full.
 * A large network behind one balancer is tens of thousands of game servers, each its own pair: at 4,096 the table
 * emptied every few thousand requests of the bench's 30,000 clients and most requests parsed their pair again.
 * About 200 bytes an entry, so at most 10 MB, plus the client's rate-limit windows while they last (about 150 bytes
 * each, the same objects as the limiter's own bounded table).
 */
export const REMEMBERED_CLIENTS = 50_000

/** Largest accepted JSON body, in bytes. */
export const MAX_BODY_BYTES = 16 * 1024

/** What the pipeline needs from the front's dependencies. */
export interface PipelineDeps {
  config: Config
  log: Logger
  lookup: CodeLookup
  verifyKey: KeyVerifier
  rateLimit: RateLimitCheck
  /** Spends unit budgets (the log events budget); absent: none is limited. */
  unitBudget?: UnitBudgetSpend
  /** Budget of distinct unknown codes per client; absent or null when UNKNOWN_CODE_BUDGET is 0. */
  unknownCodeBudget?: UnknownCodeBudget | null
  clientIp: ClientIpResolver
  /** False while the Redis connections are down: API routes then answer 503 at once instead of trying. */
  redisUp?(): boolean
  observer?: FrontObserver
  /** Counts requests per API key, route and status for `keys usage` (redis/key-usage.ts). */
  usage?: Pick<UsageRecorder, 'record'>
}

/** A built pipeline: the kit for route families, their router over a server, and the server's last-resort handlers. */
export interface Pipeline {
  kit: RouteKit
  /** The router route families register on, over `server`. */
  routes(server: HyperExpress.Server): HttpApp
  /** Answers a request no route matched (414 or 404, in JSON). */
  notFound(req: Request, res: Response): void
  /** Answers what the library caught (a 500 in JSON, when nothing was sent yet). */
  failed(req: Request, res: Response, err: Error): void
  /**
   * Stops taking requests: from now on each is answered 503 with Connection: close (a keep-alive client then goes to
   * another front). Resolves once every request already in a handler has been answered, so a log event or bind
   * being read or queued finishes before the queues and Redis connections close.
   */
  drain(): Promise<void>
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf])
const JSON_TYPE = 'application/json; charset=utf-8'
const TEXT_TYPE = 'text/plain; charset=utf-8'

/** Builds the pipeline over the front's dependencies. */
export function createPipeline(deps: PipelineDeps): Pipeline {
  const { log, observer } = deps
  const clientOf = rememberClients(deps.clientIp)
  const inFlight = countInFlight()

  // `given` is the X-Request-Id to keep; streams and unmatched requests always get a fresh one.
  const contextOf = (req: Request, route: string, text: boolean, given: string | undefined): RequestCtx => {
    // uWS request data is only valid synchronously: the IP is read before any await.
    const { ip, client, limitSlots } = clientOf(req.ip, req.headers['x-forwarded-for'])
    const requestId = given !== undefined && REQUEST_ID.test(given) ? given : randomUUID()
    return { route, requestId, ip, client, limitSlots, started: process.hrtime.bigint(), text }
  }

  const finish = (res: Response, ctx: RequestCtx, reply: Reply, req: Request, closeConnection = false) => {
    send(res, reply, ctx.requestId, req, ctx.limit, closeConnection)
    const seconds = Number(process.hrtime.bigint() - ctx.started) / 1e9
    observer?.request?.(ctx.route, reply.status, seconds, reply.error)
    if (ctx.keyName !== undefined) {
      observer?.keyRequest?.(ctx.keyName, ctx.route, reply.status)
      deps.usage?.record(ctx.keyName, ctx.route, reply.status)
    }
    // Balancers and serve probe health several times a second: a failing /readyz is logged once per change of reason
    // (health/readiness.ts, keepCheckingReadiness), not once per probe.
    if (ctx.route === 'readyz' || ctx.route === 'healthz') return
    // A 503 while Redis is down is expected: the outage itself is logged once, not once per request at error level.
    if (reply.status >= 500 && reply.error !== ErrorCode.ServiceUnavailable) log.error({ reqId: ctx.requestId, route: ctx.route, status: reply.status, ip: ctx.ip, error: reply.error }, 'request failed')
    else if (reply.status >= 400 || ctx.route === 'bind' || ctx.route === 'log') {
      log.info({ reqId: ctx.requestId, route: ctx.route, status: reply.status, ip: ctx.ip, error: reply.error, ms: Math.round(seconds * 1000) }, 'request')
    }
  }

  const wrap = (route: string, handler: RouteHandler, text: boolean, withoutRedis: boolean) => (req: Request, res: Response) => {
    const ctx = contextOf(req, route, text, req.headers['x-request-id'])
    if (inFlight.draining()) return finish(res, ctx, shuttingDown(text ? 'text' : 'json'), req, true)
    const tooLong = targetTooLong(req.path, req.path_query, text)
    if (tooLong !== null) return finish(res, ctx, tooLong, req)
    if (!withoutRedis && deps.redisUp?.() === false) return finish(res, ctx, serviceUnavailable(text ? 'text' : 'json'), req)
    let pending: Promise<Reply>
    inFlight.enter()
    try {
      pending = handler(new RequestView(req), ctx)
    } catch (err) {
      pending = Promise.reject(err)
    }
    pending
      .then(
        (reply) => finish(res, ctx, reply, req),
        (err: unknown) => finish(res, ctx, failedReply(deps, err, ctx), req),
      )
      .finally(inFlight.leave)
  }

  // A long-lived route (SSE, WebSocket upgrade): refusals in plain text without limit headers or request metrics, and
  // a throw is a 503 logged as a stream that could not open.
  const streamEntry = <T extends object>(route: string, refused: ((reply: Reply) => void) | undefined, decide: (req: HttpRequest, ctx: RequestCtx) => Promise<Reply | T>, go: (res: Response, ctx: RequestCtx, outcome: T) => void) =>
    async (req: Request, res: Response) => {
      const ctx = contextOf(req, route, true, undefined)
      const refuse = (reply: Reply) => {
        if (reply.error !== undefined) refused?.(reply)
        send(res, reply, ctx.requestId)
      }
      const tooLong = targetTooLong(req.path, req.path_query, true)
      if (tooLong !== null) return refuse(tooLong)
      try {
        const outcome = await decide(new RequestView(req), ctx)
        if (isReply(outcome)) return refuse(outcome)
        if (res.completed) return
        go(res, ctx, outcome)
      } catch (err) {
        log.error({ err, reqId: ctx.requestId, route }, 'stream could not open')
        refuse(serviceUnavailable('text'))
      }
    }

  const routes = (server: HyperExpress.Server): HttpApp => ({
    get: (path, route, handler, options) => void server.get(path, wrap(route, handler, options?.text === true, options?.withoutRedis === true)),
    post: (path, route, handler, options) => void server.post(path, wrap(route, handler, options?.text === true, options?.withoutRedis === true)),
    eventStream(path, options, handler) {
      server.get(path, streamEntry(options.route, options.refused, handler, (res, ctx, outcome) => {
        res.status(200)
        for (const [name, value] of Object.entries(outcome.headers)) res.header(name, value)
        res.header('x-request-id', ctx.requestId)
        outcome.open(eventStreamOf(res))
      }))
    },
    webSocket(path, options, upgrade, open) {
      server.upgrade(path, streamEntry(options.route, options.refused, upgrade, (res, _ctx, outcome) => res.upgrade(outcome.accept() as object)))
      server.ws(
        path,
        { message_type: 'String', idle_timeout: options.idleSeconds, max_payload_length: options.maxPayloadBytes, max_backpressure: options.maxBackpressureBytes },
        (ws: Websocket) => open(connectionOf(ws), ws.context as never),
      )
    },
  })

  return {
    kit: createKit(deps),
    routes,
    notFound(req, res) {
      const ctx = contextOf(req, 'not_found', false, undefined)
      finish(res, ctx, targetTooLong(req.path, req.path_query, false) ?? jsonError(404, ErrorCode.NotFound, `no route for ${req.method} ${req.path.slice(0, 100)}`), req)
    },
    failed(req, res, err) {
      log.error({ err, path: req.path }, 'handler error')
      if (!res.completed) send(res, jsonError(500, ErrorCode.Internal, 'internal error'), randomUUID(), req)
    },
    drain: inFlight.drain,
  }
}

/** Requests in a handler, counted so that a stopping front answers them before it closes its clients. */
function countInFlight(): { enter(): void; leave(): void; draining(): boolean; drain(): Promise<void> } {
  let count = 0
  let drained: { promise: Promise<void>; resolve: () => void } | undefined
  return {
    enter: () => {
      count++
    },
    leave: () => {
      count--
      if (count === 0) drained?.resolve()
    },
    draining: () => drained !== undefined,
    drain() {
      if (drained === undefined) {
        let resolve = () => {}
        const promise = new Promise<void>((r) => {
          resolve = r
        })
        drained = { promise, resolve }
        if (count === 0) resolve()
      }
      return drained.promise
    },
  }
}

/** The kit's limits, auth, bodies and admission over the front's dependencies. */
function createKit(deps: PipelineDeps): RouteKit {
  const { observer } = deps
  const kit: RouteKit = {
    async limited(route, ctx) {
      const outcome = await deps.rateLimit(route, ctx.client, ctx.limitSlots)
      // Its RateLimit-* headers go on the reply, whatever it is (send below).
      if (outcome.state !== undefined) ctx.limit = outcome.state
      if (outcome.ok) return null
      observer?.rateLimited?.(route)
      return ctx.text
        ? rateLimitedText(outcome.retryAfterSeconds, outcome.limit, outcome.windowSeconds)
        : rateLimitedJson(outcome.retryAfterSeconds, outcome.limit, outcome.windowSeconds, route)
    },
    async spendUnits(budget, ctx, units) {
      const limits = deps.config.rateLimits
      if (deps.unitBudget === undefined || limits === null) return null
      const { points, seconds } = limits[budget]
      // A spend larger than the whole budget could never succeed: not a 429 to wait out, a batch to split.
      if (units > points) {
        return jsonError(413, ErrorCode.BatchTooLarge, `the batch has ${units} events, more than the ${points} events per ${seconds} seconds a client may send: send smaller batches`, { max_events: points })
      }
      const outcome = await deps.unitBudget(budget, ctx.client, units)
      if (outcome.ok) return null
      observer?.rateLimited?.(budget)
      return rateLimitedJson(outcome.retryAfterSeconds, outcome.limit, outcome.windowSeconds, budget, 'events')
    },
    async authorize(req) {
      const check = await deps.verifyKey(req.headers.authorization)
      return check.ok ? { ok: true, keyName: check.name, keyId: check.id } : { ok: false, reply: unauthorized(check.message) }
    },
    readJson: (req, maxBytes = MAX_BODY_BYTES) => readJson(req, deps.config.bodyTimeoutMs, maxBytes),
    async keyed(route, req, ctx) {
      const rejected = await kit.limited(route, ctx)
      if (rejected !== null) {
        // A game developer reads their 429s per key (keys usage): a valid key is still named on the refusal. A failing
        // check only loses that attribution, never the 429.
        const check = await deps.verifyKey(req.headers.authorization).catch(() => null)
        if (check?.ok === true) ctx.keyName = check.name
        return { ok: false, reply: rejected }
      }
      const auth = await kit.authorize(req)
      if (auth.ok) ctx.keyName = auth.keyName
      return auth
    },
    async readBody(req, schema) {
      const body = await kit.readJson(req)
      return body.ok ? kit.validateBody(schema, body.value) : body
    },
    validateBody(schema, value) {
      // valibot's object() accepts arrays; the API takes only a JSON object.
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return { ok: false, reply: validationFailed([{ field: 'body', message: 'must be a JSON object' }]) }
      }
      const parsed = v.safeParse(schema, value, { abortPipeEarly: true })
      return parsed.success ? { ok: true, value: parsed.output } : { ok: false, reply: validationFailed(toFieldIssues(parsed.issues)) }
    },
    admission: createAdmission(deps),
  }
  return kit
}

/**
 * A handler that threw: Redis, MySQL or the network failing is a 503 to retry (logged once per outage by the Redis
 * watch while Redis is down, so no stack per request then); anything else is a bug, a 500 with its stack logged.
 */
function failedReply(deps: Pick<PipelineDeps, 'log' | 'redisUp'>, err: unknown, ctx: RequestCtx): Reply {
  const { log } = deps
  const message = err instanceof Error ? err.message : String(err)
  if (deps.redisUp?.() === false) {
    log.warn({ err: message, reqId: ctx.requestId, route: ctx.route }, 'request failed: Redis is down')
  } else if (failureKind(err) === 'infrastructure') {
    log.error({ err: message, reqId: ctx.requestId, route: ctx.route }, 'request failed: a dependency failed')
  } else {
    log.error({ err, reqId: ctx.requestId, route: ctx.route }, 'unhandled error')
    return ctx.text ? textError(500, ErrorCode.Internal, 'internal error') : jsonError(500, ErrorCode.Internal, 'internal error')
  }
  return serviceUnavailable(ctx.text ? 'text' : 'json')
}

/** A socket IP and X-Forwarded-For pair resolved: the client IP, its limit key, and its limit windows when the pair is remembered. */
interface RememberedClient {
  ip: string
  client: string
  limitSlots: WindowSlots | undefined
}

/**
 * The client IP and limit key of a socket IP and X-Forwarded-For pair, remembered: a polling client sends the same
 * pair again and again, and parsing them is a measurable part of a near-cache answer. Both are pure functions of the
 * pair, so a remembered result is the one they would give; the table is emptied when it reaches its bound, and long
 * X-Forwarded-For values are not kept (each entry stays small). A remembered pair also keeps the rate limiter's
 * windows of its client (redis/rate-limits.ts, `WindowSlots`), so its next request is checked without a lookup.
 */
function rememberClients(resolve: ClientIpResolver): (socketIp: string, forwardedFor: string | undefined) => RememberedClient {
  const clients = new Map<string, RememberedClient>()
  return (socketIp, forwardedFor) => {
    const pairKey = forwardedFor === undefined ? socketIp : `${socketIp}\n${forwardedFor}`
    let known = clients.get(pairKey)
    if (known === undefined) {
      const ip = resolve(socketIp, forwardedFor)
      const kept = pairKey.length <= 256
      known = { ip, client: clientKey(ip), limitSlots: kept ? {} : undefined }
      if (kept) {
        if (clients.size >= REMEMBERED_CLIENTS) clients.clear()
        clients.set(pairKey, known)
      }
    }
    return known
  }
}

async function readJson(req: HttpRequest, timeoutMs: number, maxBytes: number): Promise<{ ok: true; value: unknown; bytes: number } | { ok: false; reply: Reply }> {
  const type = req.headers['content-type']
  if (type !== undefined && !/^(?:application\/(?:[\w.+-]+\+)?json|text\/plain)\b/i.test(type)) {
    return { ok: false, reply: jsonError(415, ErrorCode.UnsupportedMediaType, 'the body must be JSON: send Content-Type: application/json') }
  }
  // A chunked body has no length to check before reading it, so it could only be limited after buffering it.
  if (req.headers['transfer-encoding'] !== undefined) {
    return { ok: false, reply: jsonError(411, ErrorCode.LengthRequired, 'send the body with a Content-Length header, not chunked') }
  }
  const declared = Number(req.headers['content-length'] ?? '0')
  const tooLarge = () => bodyTooLarge(maxBytes)
  if (declared > maxBytes) return { ok: false, reply: tooLarge() }
  const raw = await bodyWithin(req, timeoutMs)
  if (raw === null) {
    return {
      ok: false,
      reply: jsonError(400, ErrorCode.BodyIncomplete, `the body did not arrive: Content-Length says ${declared} bytes, and they did not all come within ${timeoutMs} ms`),
    }
  }
  if (raw.length > maxBytes) return { ok: false, reply: tooLarge() }
  // RFC 8259 8.1: a parser may ignore a leading byte-order mark, and some Windows tools write one.
  const json = raw.subarray(0, 3).equals(UTF8_BOM) ? raw.subarray(3) : raw
  try {
    return { ok: true, value: JSON.parse(json.toString('utf8')), bytes: raw.length }
  } catch {
    return { ok: false, reply: jsonError(422, ErrorCode.InvalidJson, 'the body is not valid JSON') }
  }
}

/** The whole body, or null when it has not all arrived within `ms` (a Content-Length larger than what was sent). */
async function bodyWithin(req: HttpRequest, ms: number): Promise<Buffer | null> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms)
  })
  try {
    return await Promise.race([req.body(), late])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Writes a reply. When `req` still has body bytes on the way (an early 401, 413, a lying Content-Length), the reply
 * goes out at once and the connection is closed: hyper-express would otherwise hold the answer until the whole
 * declared body arrived, and the unread bytes would be parsed as the next request. uWS writes the
 * `Connection: close` header of such a reply itself.
 */
function send(res: Response, reply: Reply, requestId: string, req?: Request, limit?: RateLimitState, closeConnection = false): void {
  if (res.completed) return
  const bodyPending = req !== undefined && !req.received
  if (bodyPending) req.received = true
  res.status(reply.status)
  // A 304 carries no body, so no content type (RFC 9110 15.4.5); its ETag and Cache-Control come in `headers`.
  if (reply.status !== 304) res.header('content-type', reply.type === 'json' ? JSON_TYPE : TEXT_TYPE)
  res.header('x-request-id', requestId)
  res.header('cache-control', 'no-store')
  if (limit !== undefined) {
    // IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): Reset is seconds until the window ends.
    res.header('ratelimit-limit', String(limit.limit))
    res.header('ratelimit-remaining', String(limit.remaining))
    res.header('ratelimit-reset', String(limit.resetSeconds))
  }
  // A reply's own headers win over the ones above.
  if (reply.headers !== undefined) for (const [k, v] of Object.entries(reply.headers)) res.header(k, v, true)
  res.send(reply.body, bodyPending || closeConnection)
}

function isReply(outcome: object): outcome is Reply {
  return 'status' in outcome
}

/** The library's request behind the route families' view; its headers, path and parameters are copied at creation. */
class RequestView implements HttpRequest {
  constructor(private readonly req: Request) {}
  get headers(): Readonly<Record<string, string | undefined>> {
    return this.req.headers
  }
  get params(): Readonly<Record<string, string | undefined>> {
    return this.req.path_parameters
  }
  get query(): Readonly<Record<string, string | undefined>> {
    return this.req.query_parameters
  }
  body(): Promise<Buffer> {
    return this.req.buffer()
  }
}

function eventStreamOf(res: Response): EventStream {
  return {
    write: (chunk, written) => void res.write(chunk, written),
    end: () => void res.end(),
    close() {
      if (!res.completed) res.close()
    },
    onClose: (listener) => void res.once('close', listener),
  }
}

function connectionOf(ws: Websocket): WebSocketConnection {
  return {
    send: (text) => void ws.send(text),
    ping: () => void ws.ping(),
    close: (status, reason) => ws.close(status, reason),
    get buffered() {
      return ws.buffered
    },
    on: (event: 'message' | 'close' | 'drain', listener: (...args: never[]) => void) => void ws.on(event, listener as (...args: unknown[]) => void),
  }
}
