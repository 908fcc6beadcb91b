/*
 * Fake Discord users and DMs: `GET /users/@me` (discord.js login's `client.user` fetches), `GET /users/:id`
 * (`client.users.fetch`) and `POST /users/@me/channels` (`user.createDM()` / `user.send()` open the DM channel first).
 */
import type { SandboxContext } from '../context.js'
import { json } from '../http-reply.js'
import { botAuthor } from '../messaging.js'
import { channelPayload, userPayload } from '../payloads.js'
import { discordError } from './discord-errors.js'
import { bodyOf, param, route, type RestRoute } from './rest-route.js'

function currentUser(ctx: SandboxContext): Record<string, unknown> {
  return { ...botAuthor(ctx), verified: true, mfa_enabled: false, email: null, locale: 'en-US' }
}

/** The user and DM routes. */
export function userRoutes(): RestRoute[] {
  return [
    route('GET', '/users/@me', [], (_req, ctx) => json(200, currentUser(ctx))),
    route('GET', '/users/:user', [], (req, ctx) => {
      const user = ctx.world.users.get(param(req, 'user'))
      return user ? json(200, userPayload(user)) : discordError('unknownUser')
    }),
    route('POST', '/users/@me/channels', [], (req, ctx) => {
      const recipient = bodyOf(req).recipient_id
      if (typeof recipient !== 'string' || !ctx.world.users.has(recipient)) return discordError('invalidRecipient')
      return json(200, channelPayload(ctx.world, ctx.world.dmChannel(recipient)))
    }),
  ]
}
