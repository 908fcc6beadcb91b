/*
 * Control of the sandbox as a whole: the request counters (`GET` / `DELETE /control/requests`), the rate limits it
 * enforces (`GET` / `POST /control/rate-limits`, see ../discord-rest/rate-limits.ts) and `POST /control/reset`,
 * which clears members, users, presences, messages, webhooks, failures, counters, rate-limit buckets, interactions,
 * Roblox users and the fake Open Cloud between tests while keeping guilds, commands, gateway connections and the
 * rate-limit rules.
 */
import type { SandboxContext } from '../context.js'
import { controlError, json, type Reply } from '../http-reply.js'
import type { RequestInfo } from '../http-router.js'
import { BUCKET_KINDS, DISCORD_RATE_LIMITS, UNLIMITED, type BucketKind, type BucketRule, type RateLimitRules } from '../discord-rest/rate-limits.js'
import { bodyOf, controlRoute, type ControlRoute } from './control-kit.js'

/** The control API's name of each bucket kind. */
const KIND_NAMES: Readonly<Record<BucketKind, string>> = { route: 'route', messageCreate: 'message_create', webhookExecute: 'webhook_execute', global: 'global' }

/** The rules as the control API shows them: `{route: {limit, window_ms}, message_create: ..., ...}`. */
function rateLimitSettings(ctx: SandboxContext): Reply {
  const rules = ctx.rateLimits.rules()
  return json(200, Object.fromEntries(BUCKET_KINDS.map((kind) => [KIND_NAMES[kind], { limit: rules[kind].limit, window_ms: rules[kind].windowMs }])))
}

/** One rule from the body: `{limit, window_ms}` (limit 0: never a 429), `null` for Discord's, or an error text. */
function ruleFrom(kind: BucketKind, value: unknown): BucketRule | string {
  if (value === null) return { ...DISCORD_RATE_LIMITS[kind] }
  const rule = value as { limit?: unknown; window_ms?: unknown }
  if (typeof value !== 'object' || Array.isArray(value)) return `${KIND_NAMES[kind]} must be {limit, window_ms} or null`
  const { limit, window_ms: windowMs } = rule
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0 || limit > 100_000) return `${KIND_NAMES[kind]}.limit must be a whole number 0-100000 (0: never limited)`
  if (typeof windowMs !== 'number' || !Number.isInteger(windowMs) || windowMs < 1 || windowMs > 3_600_000) return `${KIND_NAMES[kind]}.window_ms must be a whole number of milliseconds 1-3600000`
  return { limit, windowMs }
}

/**
 * `POST /control/rate-limits {preset?: 'discord' | 'unlimited', route?, message_create?, webhook_execute?, global?}`:
 * the preset first, then each named rule; every bucket starts empty again.
 */
function configureRateLimits(req: RequestInfo, ctx: SandboxContext): Reply {
  const body = bodyOf(req)
  const changed: Partial<RateLimitRules> = {}
  if (body.preset !== undefined) {
    if (body.preset !== 'discord' && body.preset !== 'unlimited') return controlError(400, "preset must be 'discord' or 'unlimited'")
    Object.assign(changed, body.preset === 'discord' ? DISCORD_RATE_LIMITS : UNLIMITED)
  }
  for (const kind of BUCKET_KINDS) {
    const value = body[KIND_NAMES[kind]]
    if (value === undefined) continue
    const rule = ruleFrom(kind, value)
    if (typeof rule === 'string') return controlError(400, rule)
    changed[kind] = rule
  }
  ctx.rateLimits.configure(structuredClone(changed))
  ctx.log('sandbox rate limits changed', { rules: ctx.rateLimits.rules() })
  return rateLimitSettings(ctx)
}

function reset(ctx: SandboxContext): Reply {
  ctx.world.reset()
  ctx.interactions.clear()
  ctx.counter.clear()
  ctx.rateLimits.clear()
  ctx.openCloud.reset()
  ctx.log('sandbox reset')
  return json(200, { ok: true })
}

/** The counter, rate-limit and reset routes. */
export function sandboxControlRoutes(): ControlRoute[] {
  return [
    controlRoute('GET', '/requests', (_req, ctx) => json(200, ctx.counter.snapshot())),
    controlRoute('DELETE', '/requests', (_req, ctx) => {
      ctx.counter.clear()
      return json(200, ctx.counter.snapshot())
    }),
    controlRoute('POST', '/reset', (_req, ctx) => reset(ctx)),
    controlRoute('GET', '/rate-limits', (_req, ctx) => rateLimitSettings(ctx)),
    controlRoute('POST', '/rate-limits', configureRateLimits),
  ]
}
