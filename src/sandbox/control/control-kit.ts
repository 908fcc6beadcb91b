/*
 * Helpers shared by the sandbox's control API files (under /control: JSON in, JSON out, no auth, errors `{error}`):
 * the route shape, body access and the guild a request names (the default guild when it names none).
 */
import type { SandboxContext } from '../context.js'
import { controlError, type Reply } from '../http-reply.js'
import type { RequestInfo, Route } from '../http-router.js'
import { isObject } from '../read-body.js'
import type { GuildRecord } from '../world-records.js'

/** A control API route. */
export type ControlRoute = Route<SandboxContext>

/** A control API route from its method, template (relative to `/control`) and handler. */
export function controlRoute(method: string, template: string, handler: ControlRoute['handler']): ControlRoute {
  return { method, template, handler }
}

/** A JSON request body. */
export type Body = Record<string, unknown>

/** The JSON object body, or `{}` for anything else. */
export const bodyOf = (req: RequestInfo): Body => (isObject(req.body) ? req.body : {})

/** A non-empty string, or null. */
export const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null)

/** The guild a request names (the default guild when `value` is absent), or a 404 reply. */
export function guildFrom(ctx: SandboxContext, value: unknown): GuildRecord | Reply {
  const id = value === undefined || value === null ? ctx.world.defaultGuildId : value
  const guild = typeof id === 'string' ? ctx.world.guilds.get(id) : undefined
  return guild ?? controlError(404, `unknown guild ${String(id)}`)
}

/** True when {@link guildFrom} found a guild. */
export function isGuild(value: GuildRecord | Reply): value is GuildRecord {
  return 'members' in value
}
