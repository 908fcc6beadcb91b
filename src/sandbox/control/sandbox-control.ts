/*
 * Control of the sandbox as a whole: the request counters (`GET` / `DELETE /control/requests`) and `POST /control/reset`,
 * which clears members, users, presences, messages, webhooks, failures, counters, rate-limit buckets, interactions,
 * Roblox users and the fake Open Cloud between tests while keeping guilds, commands and gateway connections.
 */
import type { SandboxContext } from '../context.js'
import { json, type Reply } from '../http-reply.js'
import { controlRoute, type ControlRoute } from './control-kit.js'

function reset(ctx: SandboxContext): Reply {
  ctx.world.reset()
  ctx.interactions.clear()
  ctx.counter.clear()
  ctx.rateLimits.clear()
  ctx.openCloud.reset()
  ctx.log('sandbox reset')
  return json(200, { ok: true })
}


/** The counter and reset routes. */
export function sandboxControlRoutes(): ControlRoute[] {
  return [
    controlRoute('GET', '/requests', (_req, ctx) => json(200, ctx.counter.snapshot())),
    controlRoute('DELETE', '/requests', (_req, ctx) => {
      ctx.counter.clear()
      return json(200, ctx.counter.snapshot())
    }),
    controlRoute('POST', '/reset', (_req, ctx) => reset(ctx)),
  ]
}
