/*
 * Route matching for the sandbox's three HTTP APIs (fake Discord REST, fake Roblox, control), on find-my-way.
 * Matching is what the hand-written matcher did: path segments are URL-decoded, literal segments beat `:params`
 * (`/users/@me` before `/users/:user`), duplicate and trailing slashes are ignored, a bad %-escape matches nothing.
 * find-my-way compares literals against the path decoded like `decodeURI`, which keeps `%40` encoded, and discord.js
 * `interaction.editReply` sends `messages/%40original`: so `%40` is decoded before the lookup (`@` is the only reserved
 * character in the sandbox's literals; parameters are decoded by find-my-way either way).
 */
import type { IncomingMessage } from 'node:http'
import Router from 'find-my-way'
import type { Reply } from './http-reply.js'

/** A parsed incoming request as handlers see it. */
export interface RequestInfo {
  method: string
  path: string
  params: Record<string, string>
  query: URLSearchParams
  headers: IncomingMessage['headers']
  body: unknown
}

/** One route: method, template such as `/channels/:id/messages`, and its handler. */
export interface Route<C> {
  method: string
  template: string
  handler: (req: RequestInfo, ctx: C) => Reply | Promise<Reply>
}

/** Result of {@link RouteTable.match}: the route and its decoded path parameters. */
export interface RouteMatch<R> {
  route: R
  params: Record<string, string>
}

/** Routes looked up by method and path. */
export interface RouteTable<R> {
  /** The route for a method and path (without the query string), or null. */
  match(method: string, path: string): RouteMatch<R> | null
}

// Interaction tokens are 128 characters; find-my-way's default of 100 would turn their routes into 404s.
const MAX_PARAM_LENGTH = 16 * 1024

/** Builds a route table; a later route with the same method and template is refused, as a duplicate is a bug. */
export function createRouteTable<R extends { method: string; template: string }>(routes: readonly R[]): RouteTable<R> {
  const router = Router({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: MAX_PARAM_LENGTH })
  const noop = (): void => undefined
  for (const route of routes) {
    const method = route.method as Router.HTTPMethod
    router.on(method, route.template, noop, route)
  }
  return {
    match(method, path) {
      const found = router.find(method as Router.HTTPMethod, path === '' ? '/' : path.replaceAll('%40', '@'))
      if (!found) return null
      const params: Record<string, string> = {}
      for (const [name, value] of Object.entries(found.params)) if (value !== undefined) params[name] = value
      return { route: found.store as R, params }
    },
  }
}
