/*
 * Fake `GET /gateway` and `GET /gateway/bot`: the only REST call discord.js makes at login. Announces the sandbox's
 * WebSocket URL, its shard count and a session start limit whose `max_concurrency` covers every shard (a lower one
 * makes discord.js wait about 5 s between IDENTIFYs).
 */
import { json } from '../http-reply.js'
import { route, type RestRoute } from './rest-route.js'

/** The gateway discovery routes. */
export function gatewayRoutes(): RestRoute[] {
  return [
    route('GET', '/gateway', [], (_req, ctx) => json(200, { url: ctx.urls().gatewayUrl }), false),
    route('GET', '/gateway/bot', [], (_req, ctx) => {
      const shards = ctx.gateway.shards().length
      return json(200, {
        url: ctx.urls().gatewayUrl,
        shards,
        session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: Math.max(16, shards) },
      })
    }),
  ]
}
