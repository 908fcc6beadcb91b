/**
 * GET /api/v1/info/{code} and POST /api/v1/safety (bearer), through the same pipeline as the spec's endpoints
 * (request ids, logging, metrics, rate limits, the one error shape of respond.ts). Unlike callbacks and rpc these read
 * MySQL (infractions and the watchlist live only there), through the front's small pool; they are rate-limited per IP
 * like log, each with its own budget (RATE_LIMITS `info=`, `safety=`).
 */
import { isCode } from '../../codes/model/codes.js'
import { ErrorCode } from '../model/error-codes.js'
import type { SafetyVerdict } from '../../safety/model/verdict.js'
import type { Logger } from '../../lib/logger.js'
import type { CodeInfo, SafetyCheckInput } from '../../safety/safety-service.js'
import { threatDetectionJob } from '../../safety/threat-detection.js'
import type { LogJob } from '../../queue/model/jobs.js'
import { SafetyRequestSchema } from '../model/safety-request.js'
import { invalidCode, invalidOptionalCode, jsonError, jsonOk, queueUnavailable, type Reply } from '../respond.js'
import type { HttpApp, HttpRequest, RequestCtx, RouteKit } from '../route-kit.js'

/** What the staff routes read and write, built by the front runtime. */
export interface StaffDeps {
  /** A live code with a page of its user's infractions; null when unknown or revoked. */
  readInfo(code: string, page: { limit: number; before?: string }): Promise<CodeInfo | null>
  /** The safety verdict of a player. */
  checkSafety(input: SafetyCheckInput): Promise<SafetyVerdict>
  /** Where Threat Detection entries go now. */
  threatCategory(): Promise<'ingame' | 'moderation'>
}

/** Infractions per info page unless `?limit=` says otherwise. */
export const DEFAULT_INFO_LIMIT = 20

/** Largest `?limit=`. */
export const MAX_INFO_LIMIT = 100

const INFRACTION_ID = /^[1-9]\d{0,17}$/

/** Reads `?limit=` and `?before=`; a reply when either is malformed. */
export function parseInfoQuery(query: Record<string, string | undefined>): { ok: true; limit: number; before?: string } | { ok: false; reply: Reply } {
  const { limit: rawLimit, before } = query
  let limit = DEFAULT_INFO_LIMIT
  if (rawLimit !== undefined) {
    if (!/^\d{1,3}$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > MAX_INFO_LIMIT) {
      return { ok: false, reply: jsonError(400, ErrorCode.InvalidQuery, `limit must be a whole number from 1 to ${MAX_INFO_LIMIT}`) }
    }
    limit = Number(rawLimit)
  }
  if (before !== undefined && !INFRACTION_ID.test(before)) {
    return { ok: false, reply: jsonError(400, ErrorCode.InvalidQuery, 'before must be an infraction id (a positive whole number)') }
  }
  return before === undefined ? { ok: true, limit } : { ok: true, limit, before }
}

const asNumber = (id: string | null): number | null => (id === null ? null : Number(id))

/** The info response body. */
export function infoBody(info: CodeInfo): Record<string, unknown> {
  return {
    code: info.code,
    state: info.state,
    platform_username: info.platformUsername,
    platform_user_id: asNumber(info.platformUserId),
    paused: info.paused,
    linked_at: info.linkedAt === null ? null : info.linkedAt.toISOString(),
    infraction_count: info.infractionCount,
    pardoned_count: info.pardonedCount,
    infractions: info.page.infractions.map((i) => ({
      id: Number(i.id),
      event_type: i.eventType,
      description: i.description,
      issued_by: i.issuedBy,
      code: i.code,
      platform_username: i.platformUsername,
      platform_user_id: asNumber(i.platformUserId),
      created_at: i.createdAt.toISOString(),
      pardoned: i.pardon !== null,
      pardoned_at: i.pardon === null ? null : i.pardon.at.toISOString(),
      pardoned_by: i.pardon?.by ?? null,
      pardon_reason: i.pardon?.reason ?? null,
    })),
    ...(info.page.nextBefore === null ? {} : { next_before: Number(info.page.nextBefore) }),
  }
}

// hyper-express hands path parameters over raw (not URL-decoded).
function decodePath(raw: string): string {
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

/** Registers the info and safety routes. */
export function register(
  app: HttpApp,
  kit: RouteKit,
  deps: StaffDeps & { submitLog(job: LogJob, jobId: string): Promise<void>; log: Logger; now?: () => number },
): void {
  const now = deps.now ?? Date.now

  const keyed = async (req: HttpRequest, ctx: RequestCtx): Promise<Reply | null> => {
    const auth = await kit.keyed('info', req, ctx)
    return auth.ok ? null : auth.reply
  }

  app.get('/api/v1/info/:code', 'info', async (req, ctx) => {
    const code = decodePath(req.params.code ?? '')
    const query = { ...req.query }
    const rejected = await keyed(req, ctx)
    if (rejected !== null) return rejected
    if (!isCode(code)) return invalidCode()
    const page = parseInfoQuery(query)
    if (!page.ok) return page.reply
    const found = await deps.readInfo(code, page.before === undefined ? { limit: page.limit } : { limit: page.limit, before: page.before })
    if (found === null) return jsonError(404, ErrorCode.NotFound, `no such code ${code}`, {}, undefined, 'not_found')
    return jsonOk(infoBody(found))
  })
  for (const path of ['/api/v1/info', '/api/v1/info/']) {
    app.get(path, 'info', async (req, ctx) => (await keyed(req, ctx)) ?? invalidCode())
  }

  app.post('/api/v1/safety', 'safety', async (req, ctx) => {
    const auth = await kit.keyed('safety', req, ctx)
    if (!auth.ok) return auth.reply
    const parsed = await kit.readBody(req, SafetyRequestSchema)
    if (!parsed.ok) return parsed.reply
    const b = parsed.value
    const badCode = invalidOptionalCode(b.code)
    if (badCode !== null) return badCode
    const subject = {
      platformUserId: String(b.platform_user_id),
      platformUsername: b.platform_username ?? null,
      code: typeof b.code === 'string' ? b.code : null,
    }
    const verdict = await deps.checkSafety(subject)
    if (verdict.status !== 'safe') {
      const { job, jobId } = threatDetectionJob(subject, verdict, {
        category: await deps.threatCategory(),
        source: `api:${auth.keyName}`,
        sourceIp: ctx.ip,
        nowMs: now(),
      })
      try {
        await deps.submitLog(job, jobId)
      } catch (err) {
        // Unlogged, a flag would go unseen by staff: answer 503 so the caller retries (the job id dedupes retries).
        deps.log.error({ err, reqId: ctx.requestId }, 'threat detection entry could not be queued')
        return queueUnavailable()
      }
    }
    return jsonOk({ status: verdict.status, reasons: verdict.reasons.map((r) => ({ reason: r.reason, message: r.message })) })
  })
}
