/**
 * `POST /api/v1/log/{category}` (bearer): a game server's log event, queued durably (in a micro-batch with the events
 * accepted at the same moment) for the worker to store and deliver; the 200 comes once Redis holds it. An
 * Idempotency-Key makes a retried event stored once per API key.
 */
import { randomUUID } from 'node:crypto'
import type { Logger } from '../../lib/logger.js'
import { idempotentLogJobId, logJobFingerprint } from '../../queue/log-idempotency.js'
import { IDEMPOTENCY_WINDOW_SECONDS, parseIdempotencyKey } from '../../queue/model/idempotency-key.js'
import type { LogJob } from '../../queue/model/jobs.js'
import { isLogCategory } from '../../queue/model/log-categories.js'
import type { IdempotencyClaim } from '../../redis/idempotency-keys.js'
import { ErrorCode } from '../model/error-codes.js'
import { LogRequestSchema } from '../model/log-request.js'
import { invalidOptionalCode, jsonError, jsonOk, queueUnavailable } from '../respond.js'
import type { HttpApp, RouteKit } from '../route-kit.js'

/** What the log route needs besides the kit. */
export interface LogDeps {
  log: Logger
  /**
   * Enqueues a log event durably under its event id (in the front's micro-batch, src/queue/log-batcher.ts): resolves
   * once Redis holds it. Throws when Redis is down, or when the batch it went with could not be written.
   */
  submitLog(job: LogJob, jobId: string): Promise<void>
  /**
   * Claims an idempotency key's job id for an event fingerprint (src/redis/idempotency-keys.ts). Throws when Redis is
   * down. Without it a key still stores its event once, but a reuse for another event is not refused.
   */
  claimIdempotencyKey?(jobId: string, fingerprint: string): Promise<IdempotencyClaim>
}

/** Registers the log route. */
export function register(app: HttpApp, kit: RouteKit, deps: LogDeps): void {
  const { log } = deps
  app.post('/api/v1/log/:category', 'log', async (req, ctx) => {
    const category = req.params.category ?? ''
    const idempotency = parseIdempotencyKey(req.headers['idempotency-key'])
    const auth = await kit.keyed('log', req, ctx)
    if (!auth.ok) return auth.reply
    if (!isLogCategory(category)) {
      return jsonError(400, ErrorCode.UnknownCategory, `unknown category ${JSON.stringify(category.slice(0, 40))}: use server, ingame or moderation`)
    }
    if (!idempotency.ok) return jsonError(400, ErrorCode.InvalidIdempotencyKey, idempotency.message)
    const parsed = await kit.readBody(req, LogRequestSchema)
    if (!parsed.ok) return parsed.reply
    const b = parsed.value
    const badCode = invalidOptionalCode(b.code)
    if (badCode !== null) return badCode
    const job: LogJob = {
      category,
      eventType: b.event_type,
      description: b.description,
      platformUsername: b.platform_username ?? null,
      platformUserId: b.platform_user_id == null ? null : String(b.platform_user_id),
      issuedBy: b.issued_by ?? null,
      code: typeof b.code === 'string' ? b.code : null,
      source: `api:${auth.keyName}`,
      sourceIp: ctx.ip,
      receivedAt: Date.now(),
    }
    const jobId = idempotency.key === null ? randomUUID() : idempotentLogJobId(auth.keyId, idempotency.key)
    try {
      if (idempotency.key !== null && deps.claimIdempotencyKey !== undefined) {
        const claim = await deps.claimIdempotencyKey(jobId, logJobFingerprint(job))
        if (claim === 'conflict') {
          return jsonError(
            422,
            ErrorCode.IdempotencyKeyReused,
            `this Idempotency-Key was used within the last ${IDEMPOTENCY_WINDOW_SECONDS / 3600} h for a different event; send a new key for a new event`,
          )
        }
      }
      // A retry enqueues the event again (perhaps in another batch); it is stored once, since the event id is the
      // entry's unique dedupe key in MySQL.
      await deps.submitLog(job, jobId)
    } catch (err) {
      log.error({ err: (err as Error).message, reqId: ctx.requestId }, 'log could not be queued')
      return queueUnavailable()
    }
    return jsonOk({ status: 'logged', category })
  })
}
