/*
 * Starts the sandbox on one port: the fake Discord REST API under /api/v10 (and v9), the fake Discord gateway on any
 * WebSocket upgrade, the fake Roblox users API under /roblox, the fake Open Cloud messaging API under /open-cloud and
 * the sandbox's control API under /control, so a real
 * discord.js client and the service run against it unchanged. Anything else answers a 404 naming those prefixes.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { SandboxContext, SandboxUrls } from './context.js'
import { controlRoutes } from './control/control-routes.js'
import { createGateway } from './discord-gateway/create-gateway.js'
import { createDeveloperPortal, type PrivilegedIntentName } from './discord-gateway/developer-portal.js'
import { discordError } from './discord-rest/discord-errors.js'
import { createRateLimits, DISCORD_RATE_LIMITS, UNLIMITED, type RateLimitRules } from './discord-rest/rate-limits.js'
import { createRestHandler } from './discord-rest/rest-handler.js'
import { controlError, sendReply, type Reply } from './http-reply.js'
import { createRouteTable, type Route, type RouteTable } from './http-router.js'
import { createInteractions } from './interactions.js'
import { parseBody, readBody } from './read-body.js'
import { createRequestCounter } from './request-counter.js'
import { robloxError, robloxRoutes } from './roblox/roblox-routes.js'
import { createOpenCloudState, handleOpenCloud, openCloudError, PUBLISH_TEMPLATE } from './roblox/open-cloud.js'
import { createSnowflakes } from './snowflakes.js'
import { createWorld } from './world.js'

/** Settings of a sandbox. */
export interface SandboxOptions {
  /** Port to listen on; 0 picks a free one. */
  port: number
  /** Interface to listen on (default 127.0.0.1). */
  host?: string
  /** Shards announced by `GET /gateway/bot` and used to route guilds (default 1). */
  shardCount?: number
  /** The only bot token accepted; when omitted any non-empty token is accepted. */
  botToken?: string
  /** Privileged intents switched on in the fake Developer Portal (default all three); IDENTIFY asking for another closes with 4014. */
  privilegedIntents?: readonly PrivilegedIntentName[]
  /** Id of the default guild (default 100000000000000001). */
  whitelistedGuildId?: string
  /**
   * Requests per second of every route without a bucket of its own (default 50). `0` is the unlimited sandbox: no
   * bucket of any kind answers 429 (headers are still sent), for benchmarks that measure the service, not Discord.
   */
  rateLimitPerSecond?: number
  /** Discord's rate limits to enforce, per bucket kind (default DISCORD_RATE_LIMITS); applied after `rateLimitPerSecond`. */
  rateLimits?: Partial<RateLimitRules>
  /** Receives one line per notable event (identify, resume, disconnect, errors). */
  log?: (msg: string, fields?: object) => void
}

/** A running sandbox and the addresses clients need. */
export interface Sandbox {
  /** `http://HOST:PORT`. */
  url: string
  /** `url + '/api'`: what discord.js `rest.api` takes. */
  apiBase: string
  /** `url + '/roblox'`: base of the fake Roblox users API. */
  robloxBase: string
  /** `ws://HOST:PORT`: what `GET /gateway/bot` announces. */
  gatewayUrl: string
  applicationId: string
  botUserId: string
  defaultGuildId: string
  /** Stops listening, closes every socket and releases waiters. */
  close(): Promise<void>
}

const API_PREFIX = /^\/api\/v(?:9|10)(?=\/|$)/

/**
 * A control request that changes something must say `Content-Type: application/json`. A web page can send a form or
 * text/plain POST to 127.0.0.1 without asking anyone (a CORS "simple request"), but not a JSON one without a
 * preflight, which this server never approves; so no page a developer visits can drive their sandbox.
 */
function isJsonRequest(req: IncomingMessage): boolean {
  const method = req.method ?? 'GET'
  if (method === 'GET' || method === 'HEAD') return true
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  return type === 'application/json'
}

/** Answers one request of a simple route table (Roblox or control), with the template it matched for the counter. */
async function handleSimple(
  ctx: SandboxContext,
  table: RouteTable<Route<SandboxContext>>,
  req: IncomingMessage,
  path: string,
  query: URLSearchParams,
  raw: Buffer,
  notFound: () => Reply,
  badJson: () => Reply,
): Promise<{ reply: Reply; template: string }> {
  const method = req.method ?? 'GET'
  const match = table.match(method, path)
  if (!match) return { reply: notFound(), template: '(unmatched)' }
  const parsed = parseBody(raw, req.headers['content-type'])
  if (!parsed.ok) return { reply: badJson(), template: match.route.template }
  const info = { method, path, params: match.params, query, headers: req.headers, body: parsed.value }
  return { reply: await match.route.handler(info, ctx), template: match.route.template }
}

/** The server's request handler: routes by prefix to the REST API, the Roblox API or the control API. */
function createRequestHandler(ctx: SandboxContext): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const handleRest = createRestHandler(ctx)
  const roblox = createRouteTable(robloxRoutes())
  const control = createRouteTable(controlRoutes())

  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox')
    const path = url.pathname
    let reply: Reply
    try {
      const raw = await readBody(req)
      const apiPath = API_PREFIX.exec(path)
      if (apiPath) {
        reply = await handleRest(req, path.slice(apiPath[0].length) || '/', url.searchParams, raw)
      } else if (path === '/roblox' || path.startsWith('/roblox/')) {
        const { reply: robloxReply, template } = await handleSimple(
          ctx,
          roblox,
          req,
          path.slice('/roblox'.length),
          url.searchParams,
          raw,
          () => robloxError(404, 0, 'NotFound'),
          () => robloxError(400, 0, 'BadRequest'),
        )
        ctx.counter.count(req.method ?? 'GET', `/roblox${template}`, robloxReply.status)
        reply = robloxReply
      } else if (path.startsWith('/open-cloud/')) {
        reply = openCloudReply(ctx, req, path.slice('/open-cloud'.length), raw)
      } else if ((path === '/control' || path.startsWith('/control/')) && !isJsonRequest(req)) {
        reply = controlError(415, 'the control API takes only Content-Type: application/json on anything but GET')
      } else if (path === '/control' || path.startsWith('/control/')) {
        reply = (
          await handleSimple(
            ctx,
            control,
            req,
            path.slice('/control'.length),
            url.searchParams,
            raw,
            () => controlError(404, `unknown control route ${req.method ?? 'GET'} ${path}`),
            () => controlError(400, 'body is not valid JSON'),
          )
        ).reply
      } else if (path.startsWith('/api/')) {
        ctx.counter.count(req.method ?? 'GET', '(unmatched)', 404)
        reply = discordError('unknownRoute')
      } else {
        reply = controlError(404, `nothing at ${path}: use /api/v10, /roblox, /open-cloud, /control or a websocket upgrade`)
      }
    } catch (err) {
      ctx.log('sandbox request failed', { method: req.method, path, error: err instanceof Error ? err.message : String(err) })
      reply = discordError('internalError')
    }
    if (!res.writableEnded) sendReply(res, reply)
  }
}

/** Answers one request of the fake Open Cloud (`path` without `/open-cloud`) and counts it. */
function openCloudReply(ctx: SandboxContext, req: IncomingMessage, path: string, raw: Buffer): Reply {
  const method = req.method ?? 'GET'
  const parsed = parseBody(raw, req.headers['content-type'])
  const reply = parsed.ok
    ? (handleOpenCloud(ctx.openCloud, { method, path, headers: req.headers, body: parsed.value }, ctx.now()) ?? openCloudError(404, 'NOT_FOUND', 'Not found.'))
    : openCloudError(400, 'INVALID_ARGUMENT', 'The request body is not valid JSON.')
  ctx.counter.count(method, reply.status === 404 ? '(unmatched)' : PUBLISH_TEMPLATE, reply.status)
  return reply
}

/** Listens on `port` and `host`; rejects with the server's error (say, the port in use). */
async function listen(server: Server, port: number, host: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
}

/** The addresses clients use for a server listening on `host` and `port` (a wildcard host is reached on 127.0.0.1). */
function urlsOf(host: string, port: number): SandboxUrls {
  const publicHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host
  const base = `http://${publicHost}:${port}`
  return { url: base, apiBase: `${base}/api`, robloxBase: `${base}/roblox`, gatewayUrl: `ws://${publicHost}:${port}` }
}

/** The rate-limit rules of `options`: Discord's, or none enforced (`rateLimitPerSecond: 0`), then `rateLimits` over them. */
function rateLimitRulesOf(options: SandboxOptions): RateLimitRules {
  const perSecond = options.rateLimitPerSecond
  const base: RateLimitRules =
    perSecond === 0 ? { ...UNLIMITED } : { ...DISCORD_RATE_LIMITS, ...(perSecond === undefined ? {} : { route: { limit: perSecond, windowMs: 1000 } }) }
  return { ...base, ...options.rateLimits }
}

/** Starts the fake Discord (REST + gateway), the fake Roblox users API and the control API on one port. */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1'
  const shardCount = options.shardCount ?? 1
  if (!Number.isInteger(shardCount) || shardCount < 1) throw new Error(`shardCount must be a positive integer, got ${shardCount}`)
  const log = options.log ?? ((): void => undefined)
  const now = (): number => Date.now()
  const snowflakes = createSnowflakes(now)
  const world = createWorld(
    options.whitelistedGuildId === undefined
      ? { snowflakes, now, shardCount }
      : { snowflakes, now, shardCount, defaultGuildId: options.whitelistedGuildId },
  )
  const portal = createDeveloperPortal({
    ...(options.botToken === undefined ? {} : { botToken: options.botToken }),
    ...(options.privilegedIntents === undefined ? {} : { privilegedIntents: options.privilegedIntents }),
  })
  let urls: SandboxUrls = { url: '', apiBase: '', robloxBase: '', gatewayUrl: '' }

  const gateway = createGateway({
    world,
    shardCount,
    portal,
    gatewayUrl: () => urls.gatewayUrl,
    randomHex: (bytes) => randomBytes(bytes).toString('hex'),
    log,
  })
  const ctx: SandboxContext = {
    world,
    gateway,
    interactions: createInteractions(),
    counter: createRequestCounter(),
    rateLimits: createRateLimits({ rules: rateLimitRulesOf(options), now }),
    snowflakes,
    now,
    randomToken: (bytes) => randomBytes(bytes).toString('base64url'),
    acceptsToken: portal.acceptsToken,
    urls: () => urls,
    log,
    openCloud: createOpenCloudState(),
  }
  const onRequest = createRequestHandler(ctx)

  const server = createServer((req, res) => void onRequest(req, res))
  server.keepAliveTimeout = 5000
  server.on('upgrade', (req, socket, head) => gateway.handleUpgrade(req, socket, head))

  await listen(server, options.port, host)
  const { port } = server.address() as AddressInfo
  urls = urlsOf(host, port)

  let closed: Promise<void> | null = null
  return {
    ...urls,
    applicationId: world.applicationId,
    botUserId: world.botUserId,
    defaultGuildId: world.defaultGuildId,
    close() {
      closed ??= new Promise<void>((resolve) => {
        ctx.interactions.clear()
        gateway.close()
        server.close(() => resolve())
        server.closeAllConnections()
      })
      return closed
    },
  }
}
