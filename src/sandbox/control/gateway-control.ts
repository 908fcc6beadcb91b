/*
 * Control of the fake gateway: `POST /control/dispatch` sends any event as given (to a guild's shard, a chosen shard,
 * or shard 0), `POST /control/disconnect` ends a shard's connection with a close code (4000 makes discord.js
 * RESUME), op 9 invalid session (discord.js re-IDENTIFYs) or op 7 reconnect, and `POST /control/application` changes
 * the application's Developer Portal settings: the privileged intents switched on and the bot token.
 */
import type { SandboxContext } from '../context.js'
import { controlError, json, type Reply } from '../http-reply.js'
import type { RequestInfo } from '../http-router.js'
import { isObject } from '../read-body.js'
import { isSnowflake } from '../snowflakes.js'
import { isPrivilegedIntentName } from '../discord-gateway/developer-portal.js'
import { bodyOf, controlRoute, str, type ControlRoute } from './control-kit.js'

function dispatchRaw(req: RequestInfo, ctx: SandboxContext): Reply {
  const body = bodyOf(req)
  const t = str(body.t)
  if (!t) return controlError(400, 't is required')
  if (body.shard !== undefined && (typeof body.shard !== 'number' || !Number.isInteger(body.shard))) {
    return controlError(400, 'shard must be an integer')
  }
  const dGuild = isObject(body.d) ? body.d.guild_id : undefined
  const guildId = typeof body.guild_id === 'string' ? body.guild_id : typeof dGuild === 'string' ? dGuild : null
  if (guildId !== null && !isSnowflake(guildId)) return controlError(400, 'guild_id must be a snowflake string')
  const target = typeof body.shard === 'number' ? { shard: body.shard, guildId } : { guildId }
  return json(200, ctx.gateway.dispatch(t, body.d ?? null, target))
}


function disconnect(req: RequestInfo, ctx: SandboxContext): Reply {
  const body = bodyOf(req)
  const shard = body.shard === undefined ? 0 : body.shard
  if (typeof shard !== 'number' || !Number.isInteger(shard) || shard < 0) return controlError(400, 'shard must be an integer >= 0')
  if (body.code !== undefined && (typeof body.code !== 'number' || !(body.code === 1000 || (body.code >= 3000 && body.code <= 4999)))) {
    return controlError(400, 'code must be 1000 or in 3000-4999')
  }
  const how: { code?: number; invalidate?: boolean; reconnect?: boolean } = {}
  if (typeof body.code === 'number') how.code = body.code
  if (body.invalidate === true) how.invalidate = true
  if (body.reconnect === true) how.reconnect = true
  return json(200, { ended: ctx.gateway.disconnect(shard, how) })
}


// Like the portal, a change applies to the next IDENTIFY (and, for the token, the next REST call); live sessions stay.
function application(req: RequestInfo, ctx: SandboxContext): Reply {
  const body = bodyOf(req)
  const intents = body.privileged_intents
  if (intents !== undefined && (!Array.isArray(intents) || !intents.every(isPrivilegedIntentName))) {
    return controlError(400, 'privileged_intents must be a list of GUILD_PRESENCES, GUILD_MEMBERS and MESSAGE_CONTENT')
  }
  if (body.token !== undefined && body.token !== null && str(body.token) === null) return controlError(400, 'token must be a non-empty string or null')
  const { portal } = ctx.gateway
  if (intents !== undefined) portal.setPrivilegedIntents(intents)
  if (body.token !== undefined) portal.resetToken(str(body.token))
  ctx.log('developer portal changed', portal.view())
  return json(200, portal.view())
}

/** The dispatch, disconnect and Developer Portal routes. */
export function gatewayControlRoutes(): ControlRoute[] {
  return [controlRoute('POST', '/dispatch', dispatchRaw), controlRoute('POST', '/disconnect', disconnect), controlRoute('POST', '/application', application)]
}
