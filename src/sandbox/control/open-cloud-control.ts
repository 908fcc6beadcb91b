/*
 * Control of the fake Open Cloud messaging API (../roblox/open-cloud.ts):
 * `GET /control/open-cloud/messages?universe_id=ID[&after=SEQ]` lists what was published to a universe (oldest first),
 * and `POST /control/open-cloud` sets the accepted key per universe (`{"keys": {"<universe>": "<key>" | null}}`, merged
 * into what is set) and an injected failure (`{"fail": 429 | 500 | null, "times": N, "retry_after"?: seconds}`).
 */
import type { SandboxContext } from '../context.js'
import { controlError, json, type Reply } from '../http-reply.js'
import type { RequestInfo } from '../http-router.js'
import { bodyOf, controlRoute, type ControlRoute } from './control-kit.js'

function listMessages(req: RequestInfo, ctx: SandboxContext): Reply {
  const universe = req.query.get('universe_id') ?? ''
  if (!/^[1-9][0-9]{0,15}$/.test(universe)) return controlError(400, 'universe_id must be a universe id (a positive whole number)')
  const after = req.query.get('after') ?? '0'
  if (!/^[0-9]{1,16}$/.test(after)) return controlError(400, 'after must be a message seq (a whole number)')
  const id = Number(universe)
  const from = Number(after)
  return json(200, { messages: ctx.openCloud.messages.filter((m) => m.universe_id === id && m.seq > from) })
}

function settings(ctx: SandboxContext): Reply {
  const keys: Record<string, string> = {}
  for (const [universe, key] of ctx.openCloud.keys) keys[String(universe)] = key
  const failure = ctx.openCloud.failure
  return json(200, { keys, fail: failure?.status ?? null, times: failure?.times ?? 0, retry_after: failure?.retryAfterSeconds ?? null })
}

function configure(req: RequestInfo, ctx: SandboxContext): Reply {
  const body = bodyOf(req)
  const state = ctx.openCloud
  if (body.keys !== undefined) {
    if (typeof body.keys !== 'object' || body.keys === null || Array.isArray(body.keys)) return controlError(400, 'keys must be an object of universe id to key (or null)')
    for (const [universe, key] of Object.entries(body.keys as Record<string, unknown>)) {
      if (!/^[1-9][0-9]{0,15}$/.test(universe)) return controlError(400, `keys: ${universe} is not a universe id`)
      if (key !== null && (typeof key !== 'string' || key === '')) return controlError(400, `keys: the key of ${universe} must be a non-empty string or null`)
    }
    for (const [universe, key] of Object.entries(body.keys as Record<string, string | null>)) {
      if (key === null) state.keys.delete(Number(universe))
      else state.keys.set(Number(universe), key)
    }
  }
  if (body.fail !== undefined) {
    if (body.fail === null) state.failure = null
    else {
      const times = body.times === undefined ? 1 : body.times
      const retryAfter = body.retry_after === undefined || body.retry_after === null ? null : body.retry_after
      if (body.fail !== 429 && body.fail !== 500) return controlError(400, 'fail must be 429, 500 or null')
      if (typeof times !== 'number' || !Number.isInteger(times) || times < 1) return controlError(400, 'times must be a positive whole number')
      if (retryAfter !== null && (typeof retryAfter !== 'number' || !Number.isInteger(retryAfter) || retryAfter < 0)) {
        return controlError(400, 'retry_after must be a whole number of seconds, or null')
      }
      state.failure = { status: body.fail, times, retryAfterSeconds: retryAfter }
    }
  }
  return settings(ctx)
}

/** The Open Cloud routes. */
export function openCloudControlRoutes(): ControlRoute[] {
  return [controlRoute('GET', '/open-cloud/messages', listMessages), controlRoute('POST', '/open-cloud', configure), controlRoute('GET', '/open-cloud', (_req, ctx) => settings(ctx))]
}
