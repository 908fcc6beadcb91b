/*
 * The fake Discord REST API's request pipeline, in Discord's order: route match (unknown routes answer Discord's
 * `{message: 'Unknown route', code: 0}` 404), `Authorization: Bot <token>` (401), the bot's global limit and the
 * route's rate-limit bucket (429 with Retry-After, rate-limits.ts), the JSON body (50109 on malformed JSON), then the handler; every answer carries the bucket's
 * `X-RateLimit-*` headers and is counted for `/control/requests`.
 */
import type { IncomingMessage } from 'node:http'
import type { SandboxContext } from '../context.js'
import type { Reply } from '../http-reply.js'
import { createRouteTable } from '../http-router.js'
import { parseBody } from '../read-body.js'
import { discordError } from './discord-errors.js'
import { rateLimitedReply, rateLimitHeaders, retryAfterOf } from './rate-limits.js'
import type { RestRoute } from './rest-route.js'
import { restRoutes } from './rest-routes.js'

/** Answers one REST request; `path` is relative to the API version prefix. */
export type RestHandler = (req: IncomingMessage, path: string, query: URLSearchParams, raw: Buffer) => Promise<Reply>

/** Creates the REST pipeline over every route of {@link restRoutes}. */
export function createRestHandler(ctx: SandboxContext): RestHandler {
  const table = createRouteTable(restRoutes())

  const run = async (req: IncomingMessage, route: RestRoute, params: Record<string, string>, path: string, query: URLSearchParams, raw: Buffer): Promise<Reply> => {
    const header = req.headers.authorization ?? ''
    if (route.auth && (!header.startsWith('Bot ') || !ctx.acceptsToken(header.slice(4)))) return discordError('unauthorized')
    // The global limit counts every call made with a bot token (interaction callbacks and webhooks go without one).
    if (route.auth || header.startsWith('Bot ')) {
      const global = await ctx.rateLimits.take('global', 'global', header.slice(4))
      if (!global.allowed) return rateLimitedReply(retryAfterOf(global), global)
    }
    const take = await ctx.rateLimits.take(route.bucket, `${route.method} ${route.template}`, route.major.map((p) => params[p] ?? '').join(':'))
    if (!take.allowed) return rateLimitedReply(retryAfterOf(take), take)
    const parsed = parseBody(raw, req.headers['content-type'])
    if (!parsed.ok) return { ...discordError('invalidJson'), headers: rateLimitHeaders(take) }
    const method = req.method ?? 'GET'
    const reply = await route.handler({ method, path, params, query, headers: req.headers, body: parsed.value }, ctx)
    return { ...reply, headers: { ...rateLimitHeaders(take), ...reply.headers } }
  }

  return async (req, path, query, raw) => {
    const method = req.method ?? 'GET'
    const match = table.match(method, path)
    if (!match) {
      ctx.counter.count(method, '(unmatched)', 404)
      return discordError('unknownRoute')
    }
    const { route, params } = match
    let reply: Reply
    try {
      reply = await run(req, route, params, path, query, raw)
    } catch (err) {
      ctx.log('sandbox REST handler failed', { method, route: route.template, error: err instanceof Error ? err.stack : String(err) })
      reply = discordError('internalError')
    }
    ctx.counter.count(method, route.template, reply.status)
    return reply
  }
}
