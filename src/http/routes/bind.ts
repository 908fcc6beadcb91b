/**
 * `POST /api/v1/bind` (bearer): binds a code to the player named in the body. The bind runs in the worker (BullMQ);
 * the front enqueues it and waits for its result, so a retry after a timeout is safe.
 */
import type { Logger } from '../../lib/logger.js'
import type { BindJob, BindJobResult } from '../../queue/model/jobs.js'
import type { FrontObserver } from '../front-observer.js'
import { BindRequestSchema } from '../model/bind-request.js'
import { ErrorCode } from '../model/error-codes.js'
import { bindReply, jsonError, queueUnavailable } from '../respond.js'
import type { HttpApp, RouteKit } from '../route-kit.js'

/** What the bind route needs besides the kit. */
export interface BindDeps {
  log: Logger
  /** Enqueues a bind job and waits for its result; null when it did not finish in time. Throws when Redis is down. */
  submitBind(job: BindJob): Promise<BindJobResult | null>
  observer?: FrontObserver
}

/** Registers the bind route. */
export function register(app: HttpApp, kit: RouteKit, deps: BindDeps): void {
  const { log, observer } = deps
  app.post('/api/v1/bind', 'bind', async (req, ctx) => {
    const auth = await kit.keyed('bind', req, ctx)
    if (!auth.ok) return auth.reply
    const parsed = await kit.readBody(req, BindRequestSchema)
    if (!parsed.ok) return parsed.reply
    const b = parsed.value
    let result: BindJobResult | null
    try {
      result = await deps.submitBind({
        code: b.code,
        platformUsername: b.platform_username,
        platformUserId: b.platform_user_id == null ? null : String(b.platform_user_id),
        source: `api:${auth.keyName}`,
        requestId: ctx.requestId,
      })
    } catch (err) {
      log.error({ err: (err as Error).message, reqId: ctx.requestId }, 'bind could not be queued')
      return queueUnavailable()
    }
    if (result === null) {
      return jsonError(503, ErrorCode.BindTimeout, 'the bind is taking too long; retry (a retry is safe)', {}, { 'retry-after': '2' })
    }
    observer?.bindOutcome?.(result.status === 'error' ? `error_${result.reason}` : result.status)
    return bindReply(result)
  })
}
