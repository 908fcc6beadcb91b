/*
 * Control of the fake Roblox users API: add a Roblox user (`POST /control/roblox-users`) and make every Roblox call
 * answer a status until cleared (`POST /control/roblox-fail`), for the service's lookup retries and error paths.
 */
import type { SandboxContext } from '../context.js'
import { controlError, json, type Reply } from '../http-reply.js'
import type { RequestInfo } from '../http-router.js'
import { bodyOf, controlRoute, str, type ControlRoute } from './control-kit.js'

function addRobloxUser(req: RequestInfo, ctx: SandboxContext): Reply {
  const body = bodyOf(req)
  const id = typeof body.id === 'string' && /^\d{1,15}$/.test(body.id) ? Number(body.id) : body.id
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) return controlError(400, 'id must be a positive integer')
  const name = str(body.name)
  if (!name) return controlError(400, 'name is required')
  const user = { id, name, displayName: str(body.displayName) ?? name, created: new Date(ctx.now()).toISOString() }
  ctx.world.robloxUsers.set(id, user)
  return json(200, user)
}

function robloxFail(req: RequestInfo, ctx: SandboxContext): Reply {
  const status = bodyOf(req).status
  if (status !== null && (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599)) {
    return controlError(400, 'status must be an HTTP error status (400-599) or null')
  }
  ctx.world.robloxFailure = status
  return json(200, { status })
}


/** The Roblox routes. */
export function robloxControlRoutes(): ControlRoute[] {
  return [controlRoute('POST', '/roblox-users', addRobloxUser), controlRoute('POST', '/roblox-fail', robloxFail)]
}
