/*
 * The fake Roblox users API under /roblox: `POST /v1/usernames/users` (username to id, case-insensitive, at most 100
 * names) and `GET /v1/users/:id`, with Roblox's `{errors: [{code, message}]}` bodies and the status the control API
 * injects (`/control/roblox-fail`). The service's Roblox lookups reach this instead of users.roblox.com.
 */
import type { SandboxContext } from '../context.js'
import { json, type Reply } from '../http-reply.js'
import type { Route } from '../http-router.js'
import { isObject } from '../read-body.js'
import type { RobloxUser } from '../world-records.js'

/** Most usernames Roblox accepts in one `POST /v1/usernames/users`. */
export const MAX_USERNAMES_PER_REQUEST = 100

/** A Roblox-style error reply `{errors: [{code, message}]}`. */
export function robloxError(status: number, code: number, message: string): Reply {
  return json(status, { errors: [{ code, message }] })
}

const INJECTED_MESSAGES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  429: 'TooManyRequests',
  500: 'InternalServerError',
  503: 'ServiceUnavailable',
}

function injected(ctx: SandboxContext): Reply | null {
  const status = ctx.world.robloxFailure
  if (status === null) return null
  return robloxError(status, 0, INJECTED_MESSAGES[status] ?? 'Injected failure')
}

function userDetails(user: RobloxUser): Record<string, unknown> {
  return {
    description: '',
    created: user.created,
    isBanned: false,
    externalAppDisplayName: null,
    hasVerifiedBadge: false,
    id: user.id,
    name: user.name,
    displayName: user.displayName,
  }
}

/** The fake Roblox users API (paths are relative to `/roblox`). */
export function robloxRoutes(): Array<Route<SandboxContext>> {
  return [
    {
      method: 'POST',
      template: '/v1/usernames/users',
      handler: (req, ctx) => {
        const failure = injected(ctx)
        if (failure) return failure
        const body = isObject(req.body) ? req.body : {}
        const usernames = body.usernames
        if (!Array.isArray(usernames) || usernames.some((u) => typeof u !== 'string')) {
          return robloxError(400, 0, 'Invalid request: usernames must be an array of strings.')
        }
        if (usernames.length > MAX_USERNAMES_PER_REQUEST) return robloxError(400, 2, 'Too many usernames.')
        const byName = new Map<string, RobloxUser>()
        for (const user of ctx.world.robloxUsers.values()) byName.set(user.name.toLowerCase(), user)
        const data = (usernames as string[]).flatMap((requested) => {
          const user = byName.get(requested.toLowerCase())
          return user
            ? [{ requestedUsername: requested, hasVerifiedBadge: false, id: user.id, name: user.name, displayName: user.displayName }]
            : []
        })
        return json(200, { data })
      },
    },
    {
      method: 'GET',
      template: '/v1/users/:id',
      handler: (req, ctx) => {
        const failure = injected(ctx)
        if (failure) return failure
        const id = Number(req.params.id)
        const user = Number.isSafeInteger(id) ? ctx.world.robloxUsers.get(id) : undefined
        return user ? json(200, userDetails(user)) : robloxError(404, 3, 'The user id is invalid.')
      },
    },
  ]
}
