/**
 * `POST /api/v1/log/{category}` (bearer): a game server's log event, or a batch of them (`{"events": [...]}`, all or
 * nothing), queued durably (in the front's micro-batch, a client's batch as one unit) for the worker to store and
 * deliver; the 200 comes once Redis holds every event. An Idempotency-Key makes a retried event, or a retried batch,
 * stored once per API key. A batch spends one request of the `log` budget and one unit per event of `log_events`.
 */
import { randomUUID } from 'node:crypto'
import type { Logger } from '../../lib/logger.js'
import type { IdentifiedEvent } from '../../queue/log-batcher.js'
import { batchEventId, idempotentLogJobId, logBatchFingerprint, logJobFingerprint } from '../../queue/log-idempotency.js'
import { IDEMPOTENCY_WINDOW_SECONDS, parseIdempotencyKey } from '../../queue/model/idempotency-key.js'
import type { LogJob } from '../../queue/model/jobs.js'
import { timeOrderedEventId } from '../../queue/model/log-batch.js'
import { isLogCategory, type LogCategoryName as LogCategory } from '../../queue/model/log-categories.js'
import type { IdempotencyClaim } from '../../redis/idempotency-keys.js'
import { ErrorCode } from '../model/error-codes.js'
import { isLogBatchBody, MAX_LOG_BATCH_BYTES, MAX_LOG_BATCH_EVENTS, parseLogBatch, readLogRequest, type LogRequest, LogRequestSchema } from '../model/log-request.js'
import { MAX_BODY_BYTES } from '../pipeline.js'
import { bodyTooLarge, invalidOptionalCode, jsonError, jsonOk, queueUnavailable, validationFailed, type Reply } from '../respond.js'
import type { HttpApp, RequestCtx, RouteKit } from '../route-kit.js'

/** What the log route needs besides the kit. */
export interface LogDeps {
  log: Logger
  /**
   * Enqueues a log event durably under its event id (in the front's micro-batch, src/queue/log-batcher.ts): resolves
   * once Redis holds it. Throws when Redis is down, or when the batch it went with could not be written.
   */
  submitLog(job: LogJob, jobId: string): Promise<void>
  /** Enqueues a client's batch as one unit, in one job: resolves once Redis holds it; throws as submitLog. */
  submitLogs(events: readonly IdentifiedEvent[]): Promise<void>
  /**
   * Claims an idempotency key's job id for an event fingerprint (src/redis/idempotency-keys.ts). Throws when Redis is
   * down. Without it a key still stores its event once, but a reuse for another event is not refused.
   */
  claimIdempotencyKey?(jobId: string, fingerprint: string): Promise<IdempotencyClaim>
}

/** The job of an accepted event. */
function jobOf(category: LogCategory, b: LogRequest, keyName: string, ip: string, receivedAt: number): LogJob {
  return {
    category,
    eventType: b.event_type,
    description: b.description,
    platformUsername: b.platform_username ?? null,
    platformUserId: b.platform_user_id == null ? null : String(b.platform_user_id),
    issuedBy: b.issued_by ?? null,
    code: typeof b.code === 'string' ? b.code : null,
    source: `api:${keyName}`,
    sourceIp: ip,
    receivedAt,
  }
}

function keyReused(what: string): Reply {
  return jsonError(
    422,
    ErrorCode.IdempotencyKeyReused,
    `this Idempotency-Key was used within the last ${IDEMPOTENCY_WINDOW_SECONDS / 3600} h for a different ${what}; send a new key for a new ${what}`,
  )
}

/** Claims the key (when given) and enqueues: the reply for a reused key or an unavailable queue, or null once queued. */
async function claimAndSubmit(deps: LogDeps, ctx: RequestCtx, claim: { jobId: string; fingerprint: () => string; what: string } | null, submit: () => Promise<void>): Promise<Reply | null> {
  try {
    if (claim !== null && deps.claimIdempotencyKey !== undefined) {
      if ((await deps.claimIdempotencyKey(claim.jobId, claim.fingerprint())) === 'conflict') return keyReused(claim.what)
    }
    // A retry enqueues the events again (perhaps in another batch); each is stored once, since its event id is the
    // entry's unique dedupe key in MySQL.
    await submit()
  } catch (err) {
    deps.log.error({ err: (err as Error).message, reqId: ctx.requestId }, 'log could not be queued')
    return queueUnavailable()
  }
  return null
}

/** The batch form: every event valid or a 422 naming each bad one, then the events budget, then one unit queued. */
async function logBatch(kit: RouteKit, deps: LogDeps, ctx: RequestCtx, category: LogCategory, body: { events: unknown }, auth: { keyName: string; keyId: string }, idempotencyKey: string | null): Promise<Reply> {
  const batch = parseLogBatch(body)
  if (!batch.ok) {
    switch (batch.kind) {
      case 'not_a_list':
        return validationFailed([{ field: 'events', message: 'must be a list of log events' }])
      case 'empty':
        return jsonError(422, ErrorCode.EmptyBatch, 'the batch is empty: send 1 to 500 events in "events"')
      case 'too_many':
        return jsonError(413, ErrorCode.BatchTooLarge, `the batch has ${batch.count} events: send at most ${MAX_LOG_BATCH_EVENTS} per request`, { max_events: MAX_LOG_BATCH_EVENTS })
      case 'invalid': {
        const n = batch.events.length
        const first = batch.events[0]!
        const summary = `event ${first.index}: ${first.issues.map((i) => `${i.field} ${i.message}`).join('; ')}`
        return jsonError(422, ErrorCode.InvalidEvents, `${n} invalid event${n === 1 ? '' : 's'}, nothing was logged; ${summary}`, { events: batch.events })
      }
    }
  }
  const limited = await kit.spendUnits('log_events', ctx, batch.events.length)
  if (limited !== null) return limited
  const receivedAt = Date.now()
  // Event i is `{base}-{i}`: the idempotent job id of the key, or one time-ordered id for the whole batch (a UUID per
  // event was a fifth of what the front allocated for a batch).
  const base = idempotencyKey === null ? timeOrderedEventId(receivedAt, randomUUID()) : idempotentLogJobId(auth.keyId, idempotencyKey)
  const events: IdentifiedEvent[] = batch.events.map((b, i) => ({
    id: batchEventId(base, i),
    job: jobOf(category, b, auth.keyName, ctx.ip, receivedAt),
  }))
  const claim = idempotencyKey === null ? null : { jobId: base, fingerprint: () => logBatchFingerprint(events.map((e) => e.job)), what: 'batch' }
  const failed = await claimAndSubmit(deps, ctx, claim, () => deps.submitLogs(events))
  return failed ?? jsonOk({ status: 'logged', category, count: events.length })
}

/** Registers the log route. */
export function register(app: HttpApp, kit: RouteKit, deps: LogDeps): void {
  app.post('/api/v1/log/:category', 'log', async (req, ctx) => {
    const category = req.params.category ?? ''
    const idempotency = parseIdempotencyKey(req.headers['idempotency-key'])
    const auth = await kit.keyed('log', req, ctx)
    if (!auth.ok) return auth.reply
    if (!isLogCategory(category)) {
      return jsonError(400, ErrorCode.UnknownCategory, `unknown category ${JSON.stringify(category.slice(0, 40))}: use server, ingame or moderation`)
    }
    if (!idempotency.ok) return jsonError(400, ErrorCode.InvalidIdempotencyKey, idempotency.message)
    const body = await kit.readJson(req, MAX_LOG_BATCH_BYTES)
    if (!body.ok) return body.reply
    if (isLogBatchBody(body.value)) return logBatch(kit, deps, ctx, category, body.value, auth, idempotency.key)
    if (body.bytes > MAX_BODY_BYTES) return bodyTooLarge(MAX_BODY_BYTES)
    // The schema reads again only what the fast reader refused, for its issues (a list is refused there too).
    const fast = Array.isArray(body.value) ? undefined : readLogRequest(body.value)
    const parsed = fast !== undefined ? { ok: true as const, value: fast } : kit.validateBody(LogRequestSchema, body.value)
    if (!parsed.ok) return parsed.reply
    const badCode = invalidOptionalCode(parsed.value.code)
    if (badCode !== null) return badCode
    const job = jobOf(category, parsed.value, auth.keyName, ctx.ip, Date.now())
    const jobId = idempotency.key === null ? timeOrderedEventId(job.receivedAt, randomUUID()) : idempotentLogJobId(auth.keyId, idempotency.key)
    const claim = idempotency.key === null ? null : { jobId, fingerprint: () => logJobFingerprint(job), what: 'event' }
    const failed = await claimAndSubmit(deps, ctx, claim, () => deps.submitLog(job, jobId))
    return failed ?? jsonOk({ status: 'logged', category })
  })
}
