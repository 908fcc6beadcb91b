/**
 * The HTTP front: the spec's four endpoints plus health checks, on hyper-express. It reads only Redis
 * (lookups, rate limits, keys) and hands writes to BullMQ; it never touches MySQL on a request path,
 * except the info and safety routes (staff-routes.ts), which read infractions and the watchlist there.
 */
import { hash, randomUUID } from 'node:crypto'
import HyperExpress, { type Request, type Response } from 'hyper-express'
import * as v from 'valibot'
import type { KeyVerifier } from '../auth/api-key-service.js'
import type { Config } from '../config.js'
import { renderCallbackBlock, renderRpcBlock, type CodeView } from '../presence/model/blocks.js'
import { clientKey } from './model/client-key.js'
import { NO_USABLE_CODE_MESSAGE, parseCodesPath } from '../codes/model/codes-path.js'
import { ErrorCode } from './model/error-codes.js'
import { IDEMPOTENCY_WINDOW_SECONDS, parseIdempotencyKey } from '../queue/model/idempotency-key.js'
import { etagOf, ifNoneMatchHits } from './model/etag.js'
import { failureKind } from '../queue/model/failure-kind.js'
import { isLogCategory } from '../queue/model/log-categories.js'
import { unknownCodeBudgetMessage, unknownCodes } from '../codes/model/unknown-codes.js'
import type { Logger } from '../lib/logger.js'
import { idempotentLogJobId, logJobFingerprint } from '../queue/log-idempotency.js'
import type { CodeLookup } from '../redis/code-lookup.js'
import type { IdempotencyClaim } from '../redis/idempotency-keys.js'
import type { LimitedRoute, RateLimitCheck } from '../redis/rate-limits.js'
import type { UnknownCodeBudget } from '../redis/unknown-code-budget.js'
import { BindRequestSchema } from './model/bind-request.js'
import { toFieldIssues } from './model/fields.js'
import type { BindJob, BindJobResult, LogJob } from '../queue/model/jobs.js'
import { LogRequestSchema } from './model/log-request.js'
import type { ClientIpResolver } from './client-ip.js'
import type { RequestCtx } from './route-kit.js'
import { registerStaffRoutes, type StaffDeps } from './staff-routes.js'
import { registerStreamRoutes, type StreamDeps } from './stream-routes.js'
import {
  bindReply,
  jsonError,
  jsonOk,
  queueUnavailable,
  targetTooLong,
  rateLimitedJson,
  rateLimitedText,
  send,
  serviceUnavailable,
  textError,
  invalidOptionalCode,
  unauthorized,
  validationFailed,
  type Reply,
} from './respond.js'

/** Callbacks/rpc answers remembered per route (by raw path), to skip parsing, rendering and hashing when unchanged. */
export const REMEMBERED_ANSWERS = 256

/** Client IP resolutions remembered per front (socket IP and X-Forwarded-For pairs); the table is emptied when full. */
export const REMEMBERED_CLIENTS = 4096

/** Largest accepted JSON body, in bytes. */
export const MAX_BODY_BYTES = 16 * 1024

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf])

/** Hooks for metrics; every method is optional. */
export interface FrontObserver {
  request?(route: string, status: number, seconds: number, error: string | undefined): void
  rateLimited?(route: LimitedRoute): void
  codesPerRequest?(route: 'callbacks' | 'rpc', count: number): void
  /** A client passed its unknown-code budget (called once per client and window, whichever front saw it). */
  unknownCodeBudgetExhausted?(route: 'callbacks' | 'rpc'): void
  bindOutcome?(status: string): void
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

/** Everything the front needs, built by the entry point (real clients in production and in tests). */
export interface FrontDeps {
  config: Config
  log: Logger
  lookup: CodeLookup
  verifyKey: KeyVerifier
  rateLimit: RateLimitCheck
  /** Budget of distinct unknown codes per client; absent or null when UNKNOWN_CODE_BUDGET is 0. */
  unknownCodeBudget?: UnknownCodeBudget | null
  clientIp: ClientIpResolver
  /** Enqueues a bind job and waits for its result; null when it did not finish in time. Throws when Redis is down. */
  submitBind(job: BindJob): Promise<BindJobResult | null>
  /** Enqueues a log job durably under `jobId`. Throws when Redis is down. */
  submitLog(job: LogJob, jobId: string): Promise<void>
  /**
   * Claims an idempotency key's job id for an event fingerprint (src/redis/idempotency-keys.ts). Throws when Redis is
   * down. Without it a key still stores its event once, but a reuse for another event is not refused.
   */
  claimIdempotencyKey?(jobId: string, fingerprint: string): Promise<IdempotencyClaim>
  /** Reachability of Redis and MySQL. */
  checkReady(): Promise<{ redis: boolean; mysql: boolean }>
  /** False while the Redis connections are down: API routes then answer 503 at once instead of trying. */
  redisUp?(): boolean
  /** Reads behind the info and safety routes; without them those routes are not served. */
  staff?: StaffDeps
  /** The stream hub and its hooks; without them the stream routes are not served. */
  streams?: Omit<StreamDeps, 'config' | 'log' | 'lookup' | 'unknownCodeBudget' | 'clientIp' | 'limited'>
  observer?: FrontObserver
}

type Handler = (req: Request, res: Response, ctx: RequestCtx) => Promise<Reply>

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/

/** Builds the server with every route; the caller listens and closes it. */
export function createFrontApp(deps: FrontDeps): HyperExpress.Server {
  assertAbortSafeBodies()
  // hyper-express answers a declared length over max_body_length itself, with an empty 413, before any handler runs
  // (so before the key is checked) and only once the whole body has arrived. Its limit is therefore off; ours
  // (readJson: MAX_BODY_BYTES, declared length required) runs after the key check and answers JSON at once.
  const app = new HyperExpress.Server({ max_body_length: Number.POSITIVE_INFINITY, trust_proxy: false })
  const { log, observer } = deps

  // The client IP and limit key of a socket IP and X-Forwarded-For pair, remembered: a polling client sends the same
  // pair again and again, and parsing them is a measurable part of a near-cache answer. Both are pure functions of the
  // pair, so a remembered result is the one they would give; the table is emptied when it reaches its bound, and long
  // X-Forwarded-For values are not kept (each entry stays small).
  const clients = new Map<string, { ip: string; client: string }>()
  const clientOf = (socketIp: string, forwardedFor: string | undefined): { ip: string; client: string } => {
    const pairKey = forwardedFor === undefined ? socketIp : `${socketIp}\n${forwardedFor}`
    let known = clients.get(pairKey)
    if (known === undefined) {
      const ip = deps.clientIp(socketIp, forwardedFor)
      known = { ip, client: clientKey(ip) }
      if (pairKey.length <= 256) {
        if (clients.size >= REMEMBERED_CLIENTS) clients.clear()
        clients.set(pairKey, known)
      }
    }
    return known
  }

  const finish = (res: Response, ctx: RequestCtx, reply: Reply, req?: Request) => {
    send(res, ctx.limitHeaders === undefined ? reply : { ...reply, headers: { ...ctx.limitHeaders, ...reply.headers } }, ctx.requestId, req)
    const seconds = Number(process.hrtime.bigint() - ctx.started) / 1e9
    observer?.request?.(ctx.route, reply.status, seconds, reply.error)
    // A 503 while Redis is down is expected: the outage itself is logged once, not once per request at error level.
    if (reply.status >= 500 && reply.error !== ErrorCode.ServiceUnavailable) log.error({ reqId: ctx.requestId, route: ctx.route, status: reply.status, ip: ctx.ip, error: reply.error }, 'request failed')
    else if (reply.status >= 400 || ctx.route === 'bind' || ctx.route === 'log') {
      log.info({ reqId: ctx.requestId, route: ctx.route, status: reply.status, ip: ctx.ip, error: reply.error, ms: Math.round(seconds * 1000) }, 'request')
    }
  }

  const wrap = (route: string, handler: Handler) => (req: Request, res: Response) => {
    // uWS request data is only valid synchronously: read the IP and headers before any await.
    const given = req.headers['x-request-id']
    const { ip, client } = clientOf(req.ip, req.headers['x-forwarded-for'])
    const ctx: RequestCtx = {
      route,
      requestId: given !== undefined && REQUEST_ID.test(given) ? given : randomUUID(),
      ip,
      client,
      started: process.hrtime.bigint(),
    }
    const text = route === 'callbacks' || route === 'rpc'
    const tooLong = targetTooLong(req, text)
    if (tooLong !== null) {
      finish(res, ctx, tooLong, req)
      return
    }
    if (deps.redisUp?.() === false && route !== 'healthz' && route !== 'readyz') {
      finish(res, ctx, serviceUnavailable(text ? 'text' : 'json'), req)
      return
    }
    let pending: Promise<Reply>
    try {
      pending = handler(req, res, ctx)
    } catch (err) {
      pending = Promise.reject(err)
    }
    pending.then(
      (reply) => finish(res, ctx, reply, req),
      (err: unknown) => finish(res, ctx, failedReply(err, ctx, text), req),
    )
  }

  // A handler that threw: Redis, MySQL or the network failing is a 503 to retry (logged once per outage by the Redis
  // watch while Redis is down, so no stack per request then); anything else is a bug, a 500 with its stack logged.
  const failedReply = (err: unknown, ctx: RequestCtx, text: boolean): Reply => {
    const message = err instanceof Error ? err.message : String(err)
    if (deps.redisUp?.() === false) {
      log.warn({ err: message, reqId: ctx.requestId, route: ctx.route }, 'request failed: Redis is down')
    } else if (failureKind(err) === 'infrastructure') {
      log.error({ err: message, reqId: ctx.requestId, route: ctx.route }, 'request failed: a dependency failed')
    } else {
      log.error({ err, reqId: ctx.requestId, route: ctx.route }, 'unhandled error')
      return text ? textError(500, ErrorCode.Internal, 'internal error') : jsonError(500, ErrorCode.Internal, 'internal error')
    }
    const headers = { 'retry-after': '5' }
    return text
      ? textError(503, ErrorCode.ServiceUnavailable, 'temporarily unavailable; retry shortly', headers)
      : jsonError(503, ErrorCode.ServiceUnavailable, 'temporarily unavailable; retry shortly', {}, headers)
  }

  const limited = async (route: LimitedRoute, ctx: RequestCtx, text: boolean): Promise<Reply | null> => {
    const outcome = await deps.rateLimit(route, ctx.client)
    if (outcome.state !== undefined) {
      // IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): Reset is seconds until the window ends.
      ctx.limitHeaders = {
        'ratelimit-limit': String(outcome.state.limit),
        'ratelimit-remaining': String(outcome.state.remaining),
        'ratelimit-reset': String(outcome.state.resetSeconds),
      }
    }
    if (outcome.ok) return null
    observer?.rateLimited?.(route)
    return text
      ? rateLimitedText(outcome.retryAfterSeconds, outcome.limit, outcome.windowSeconds)
      : rateLimitedJson(outcome.retryAfterSeconds, outcome.limit, outcome.windowSeconds)
  }

  const readJson = async (req: Request): Promise<{ ok: true; value: unknown } | { ok: false; reply: Reply }> => {
    const type = req.headers['content-type']
    if (type !== undefined && !/^(?:application\/(?:[\w.+-]+\+)?json|text\/plain)\b/i.test(type)) {
      return { ok: false, reply: jsonError(415, ErrorCode.UnsupportedMediaType, 'the body must be JSON: send Content-Type: application/json') }
    }
    // A chunked body has no length to check before reading it, so it could only be limited after buffering it.
    if (req.headers['transfer-encoding'] !== undefined) {
      return { ok: false, reply: jsonError(411, ErrorCode.LengthRequired, 'send the body with a Content-Length header, not chunked') }
    }
    const declared = Number(req.headers['content-length'] ?? '0')
    const tooLarge = jsonError(413, ErrorCode.BodyTooLarge, `the body must be at most ${MAX_BODY_BYTES} bytes`)
    if (declared > MAX_BODY_BYTES) return { ok: false, reply: tooLarge }
    const raw = await bodyWithin(req, deps.config.bodyTimeoutMs)
    if (raw === null) {
      return {
        ok: false,
        reply: jsonError(400, ErrorCode.BodyIncomplete, `the body did not arrive: Content-Length says ${declared} bytes, and they did not all come within ${deps.config.bodyTimeoutMs} ms`),
      }
    }
    if (raw.length > MAX_BODY_BYTES) return { ok: false, reply: tooLarge }
    // RFC 8259 8.1: a parser may ignore a leading byte-order mark, and some Windows tools write one.
    const json = raw.subarray(0, 3).equals(UTF8_BOM) ? raw.subarray(3) : raw
    try {
      return { ok: true, value: JSON.parse(json.toString('utf8')) }
    } catch {
      return { ok: false, reply: jsonError(422, ErrorCode.InvalidJson, 'the body is not valid JSON') }
    }
  }

  const validateBody = <S extends v.GenericSchema>(schema: S, value: unknown): { ok: true; value: v.InferOutput<S> } | { ok: false; reply: Reply } => {
    // valibot's object() accepts arrays; the API takes only a JSON object.
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return { ok: false, reply: validationFailed([{ field: 'body', message: 'must be a JSON object' }]) }
    }
    const parsed = v.safeParse(schema, value, { abortPipeEarly: true })
    return parsed.success ? { ok: true, value: parsed.output } : { ok: false, reply: validationFailed(toFieldIssues(parsed.issues)) }
  }

  const authorize = async (req: Request): Promise<{ ok: true; keyName: string; keyId: string } | { ok: false; reply: Reply }> => {
    const check = await deps.verifyKey(req.headers.authorization)
    return check.ok ? { ok: true, keyName: check.name, keyId: check.id } : { ok: false, reply: unauthorized(check.message) }
  }
  const blocks = (route: 'callbacks' | 'rpc', render: (code: string, view: CodeView) => string): Handler => {
    // The last answer per raw path: when every view the lookup returns is the same object as last time (the near cache
    // hands out one view object per entry and liveness), the body and its ETag are the same too.
    const remembered = new Map<string, { codes: readonly string[]; views: readonly CodeView[]; body: string; etag: string }>()
    return async (req, _res, ctx) => {
      const raw = req.path_parameters.codes ?? ''
      const ifNoneMatch = req.headers['if-none-match']
      const rejected = await limited(route, ctx, true)
      if (rejected !== null) return rejected
      const last = remembered.get(raw)
      let codes: readonly string[]
      if (last !== undefined) codes = last.codes
      else {
        const parsed = parseCodesPath(raw, deps.config.maxCodesPerRequest)
        if (!parsed.ok) {
          return textError(400, parsed.reason === 'too_many_codes' ? ErrorCode.TooManyCodes : ErrorCode.NoUsableCode, parsed.message)
        }
        codes = parsed.codes
      }
      observer?.codesPerRequest?.(route, codes.length)
      const views = await deps.lookup(codes)
      // Only requests with unknown codes pay this round trip: polling linked codes costs what it always did.
      const budget = deps.unknownCodeBudget
      const unknown = budget == null ? [] : unknownCodes(codes, views)
      if (budget != null && unknown.length > 0) {
        const spent = await budget(ctx.client, unknown)
        if (!spent.ok) {
          if (spent.firstRefusal) observer?.unknownCodeBudgetExhausted?.(route)
          return textError(429, ErrorCode.UnknownCodeBudget, unknownCodeBudgetMessage(spent.budget, spent.windowSeconds, spent.retryAfterSeconds), {
            'retry-after': String(spent.retryAfterSeconds),
          })
        }
      }
      let body: string
      let etag: string
      if (last !== undefined && sameObjects(last.views, views)) ({ body, etag } = last)
      else {
        body = ''
        for (let i = 0; i < codes.length; i++) body += render(codes[i]!, views[i]!)
        // SHA-1 is used as a fast digest of our own output here, not for security: a collision would only cost a 304.
        etag = etagOf(hash('sha1', body, 'base64url'))
        remembered.delete(raw)
        remembered.set(raw, { codes, views, body, etag })
        if (remembered.size > REMEMBERED_ANSWERS) remembered.delete(remembered.keys().next().value as string)
      }
      const headers = { etag, 'cache-control': 'no-cache' }
      if (ifNoneMatchHits(ifNoneMatch, etag)) {
        // hyper-express 6.17 on uWS 20.30 ends a 304 without a declared length with `Content-Length: 9223372036854775808`,
        // and with the 200's length it leaves the connection unfinished (it never closes). A 304 has no body whatever
        // its Content-Length says (RFC 9112 6.3), so 0 is what we declare.
        return { status: 304, type: 'text', body: '', headers: { ...headers, 'content-length': '0' } }
      }
      return { status: 200, type: 'text', body, headers }
    }
  }

  const noCodes = (route: 'callbacks' | 'rpc'): Handler => async (_req, _res, ctx) => {
    const rejected = await limited(route, ctx, true)
    return rejected ?? textError(400, ErrorCode.NoUsableCode, NO_USABLE_CODE_MESSAGE)
  }

  app.get('/api/v1/callbacks/:codes', wrap('callbacks', blocks('callbacks', renderCallbackBlock)))
  app.get('/api/v1/rpc/:codes', wrap('rpc', blocks('rpc', renderRpcBlock)))
  for (const route of ['callbacks', 'rpc'] as const) {
    app.get(`/api/v1/${route}`, wrap(route, noCodes(route)))
    app.get(`/api/v1/${route}/`, wrap(route, noCodes(route)))
  }

  if (deps.streams !== undefined) {
    const { config, lookup, unknownCodeBudget, clientIp } = deps
    const ctxOf = (client: string): RequestCtx => ({ route: 'stream', requestId: '', ip: client, client, started: 0n })
    // Opening a stream costs what a callbacks request costs, so it spends the callbacks rate limit.
    registerStreamRoutes(app, { ...deps.streams, config, log, lookup, unknownCodeBudget, clientIp, limited: (client) => limited('callbacks', ctxOf(client), true) })
  }

  app.post('/api/v1/bind', wrap('bind', async (req, _res, ctx) => {
    const rejected = await limited('bind', ctx, false)
    if (rejected !== null) return rejected
    const auth = await authorize(req)
    if (!auth.ok) return auth.reply
    const body = await readJson(req)
    if (!body.ok) return body.reply
    const parsed = validateBody(BindRequestSchema, body.value)
    if (!parsed.ok) return parsed.reply
    const b = parsed.value
    let result: BindJobResult | null
    try {
      result = await deps.submitBind({
        code: b.code,
        platformUsername: b.platform_username,
        platformUserId: b.platform_user_id == null ? null : String(b.platform_user_id),
        source: `api:${auth.keyName}`,
        requestId: ctx.requestId,
      })
    } catch (err) {
      log.error({ err: (err as Error).message, reqId: ctx.requestId }, 'bind could not be queued')
      return queueUnavailable()
    }
    if (result === null) {
      return jsonError(503, ErrorCode.BindTimeout, 'the bind is taking too long; retry (a retry is safe)', {}, { 'retry-after': '2' })
    }
    observer?.bindOutcome?.(result.status === 'error' ? `error_${result.reason}` : result.status)
    return bindReply(result)
  }))

  app.post('/api/v1/log/:category', wrap('log', async (req, _res, ctx) => {
    const category = req.path_parameters.category ?? ''
    // Read before any await: uWS request data is only valid synchronously.
    const idempotency = parseIdempotencyKey(req.headers['idempotency-key'])
    const rejected = await limited('log', ctx, false)
    if (rejected !== null) return rejected
    const auth = await authorize(req)
    if (!auth.ok) return auth.reply
    if (!isLogCategory(category)) {
      return jsonError(400, ErrorCode.UnknownCategory, `unknown category ${JSON.stringify(category.slice(0, 40))}: use server, ingame or moderation`)
    }
    if (!idempotency.ok) return jsonError(400, ErrorCode.InvalidIdempotencyKey, idempotency.message)
    const body = await readJson(req)
    if (!body.ok) return body.reply
    const parsed = validateBody(LogRequestSchema, body.value)
    if (!parsed.ok) return parsed.reply
    const b = parsed.value
    const badCode = invalidOptionalCode(b.code)
    if (badCode !== null) return badCode
    const job: LogJob = {
      category,
      eventType: b.event_type,
      description: b.description,
      platformUsername: b.platform_username ?? null,
      platformUserId: b.platform_user_id == null ? null : String(b.platform_user_id),
      issuedBy: b.issued_by ?? null,
      code: typeof b.code === 'string' ? b.code : null,
      source: `api:${auth.keyName}`,
      sourceIp: ctx.ip,
      receivedAt: Date.now(),
    }
    const jobId = idempotency.key === null ? randomUUID() : idempotentLogJobId(auth.keyId, idempotency.key)
    try {
      if (idempotency.key !== null && deps.claimIdempotencyKey !== undefined) {
        const claim = await deps.claimIdempotencyKey(jobId, logJobFingerprint(job))
        if (claim === 'conflict') {
          return jsonError(
            422,
            ErrorCode.IdempotencyKeyReused,
            `this Idempotency-Key was used within the last ${IDEMPOTENCY_WINDOW_SECONDS / 3600} h for a different event; send a new key for a new event`,
          )
        }
      }
      // A retry enqueues again: a no-op while BullMQ holds the job, and stored once in any case (the job id is the
      // entry's unique dedupe key in MySQL).
      await deps.submitLog(job, jobId)
    } catch (err) {
      log.error({ err: (err as Error).message, reqId: ctx.requestId }, 'log could not be queued')
      return queueUnavailable()
    }
    return jsonOk({ status: 'logged', category })
  }))

  if (deps.staff !== undefined) {
    registerStaffRoutes(
      app,
      {
        wrap,
        limited: (route, ctx) => limited(route, ctx, false),
        authorize,
        readJson,
        validateBody,
      },
      { ...deps.staff, submitLog: deps.submitLog, log },
    )
  }

  // A plain GET of the WebSocket route (no Upgrade) would otherwise fall through to 404.
  app.get('/api/v1/ws', wrap('ws', async () =>
    jsonError(426, ErrorCode.UpgradeRequired, 'this is a WebSocket endpoint: connect with Upgrade: websocket (or use GET /api/v1/stream/{codes} for server-sent events)', {}, {
      upgrade: 'websocket',
      connection: 'Upgrade',
    }),
  ))

  app.get('/healthz', wrap('healthz', async () => ({ status: 200, type: 'text', body: 'ok\n' })))
  app.get('/readyz', wrap('readyz', async () => {
    const r = await deps.checkReady()
    // Without MySQL the front still serves callbacks, rpc and log accepts from Redis: a load balancer must keep
    // routing to it, so that is 200 "degraded". Without Redis nothing works: 503 (docs/decisions.md, 2026-11-23).
    const status = !r.redis ? 'not_ready' : r.mysql ? 'ready' : 'degraded'
    return { status: r.redis ? 200 : 503, type: 'json', body: JSON.stringify({ status, redis: r.redis ? 'ok' : 'down', mysql: r.mysql ? 'ok' : 'down' }) }
  }))

  app.set_not_found_handler((req, res) => {
    const ip = deps.clientIp(req.ip, req.headers['x-forwarded-for'])
    const ctx: RequestCtx = { route: 'not_found', requestId: randomUUID(), ip, client: clientKey(ip), started: process.hrtime.bigint() }
    finish(res, ctx, targetTooLong(req, false) ?? jsonError(404, ErrorCode.NotFound, `no route for ${req.method} ${req.path.slice(0, 100)}`), req)
  })
  app.set_error_handler((req, res, err) => {
    log.error({ err, path: req.path }, 'handler error')
    if (!res.completed) send(res, jsonError(500, ErrorCode.Internal, 'internal error'), randomUUID(), req)
  })
  return app
}

/**
 * Refuses to build a front on an unpatched hyper-express: 6.17 calls into an aborted or ended uWS response from its
 * body parser (an uncaught exception that ends the worker) unless patches/hyper-express+6.17.4.patch is applied,
 * which `npm ci` does (package.json postinstall). `npm ci --ignore-scripts` skips it.
 */
function assertAbortSafeBodies(): void {
  const prototype = (HyperExpress as unknown as { Request: { prototype: Record<string, unknown> } }).Request.prototype
  if (typeof prototype._response_finished !== 'function') {
    throw new Error('hyper-express is not patched (patches/hyper-express+6.17.4.patch): run `npm ci` without --ignore-scripts, or `npx patch-package`')
  }
}

function sameObjects(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** The whole body, or null when it has not all arrived within `ms` (a Content-Length larger than what was sent). */
async function bodyWithin(req: Request, ms: number): Promise<Buffer | null> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms)
  })
  try {
    return await Promise.race([req.buffer(), late])
  } finally {
    clearTimeout(timer)
  }
}
