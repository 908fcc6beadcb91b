/**
 * Job ids and fingerprints of log jobs sent with an Idempotency-Key: the id is a hash of (API key id, idempotency
 * key), so every retry names the same BullMQ job and the same MySQL dedupe key (`job:{queue}:{id}`, unique for good);
 * the fingerprint is a hash of the event (or of the batch), to tell a retry from a different event reusing the key.
 * Event i of a batch sent with a key has the id `{that id}-{i}`.
 */
import { createHash } from 'node:crypto'
import type { LogJob } from './model/jobs.js'

/** The log job id for an idempotency key of an API key: `idem-` and 64 hex digits (BullMQ ids may not contain `:`). */
export function idempotentLogJobId(apiKeyId: string, idempotencyKey: string): string {
  return `idem-${createHash('sha256').update(`${apiKeyId}\n${idempotencyKey}`).digest('hex')}`
}

/** A hash of what the client sent (category and body fields), not of what the front added (time, IP). */
export function logJobFingerprint(job: LogJob): string {
  const fields = [job.category, job.eventType, job.description, job.platformUsername, job.platformUserId, job.issuedBy, job.code]
  return createHash('sha256').update(JSON.stringify(fields)).digest('base64url')
}

/**
 * The id of event `index` (0-based) of a batch whose id is `base` (the idempotent job id of its key, or a time-ordered
 * id of its own): `{base}-{index}`, the index in three digits so that a batch's ids sort in its order.
 */
export function batchEventId(base: string, index: number): string {
  return `${base}-${String(index).padStart(3, '0')}`
}

/**
 * A hash of a batch as the client sent it: its category and each event's fields, in order, marked as a batch so that
 * a single event and a batch of that one event are told apart (a key reused between them is refused).
 */
export function logBatchFingerprint(jobs: readonly LogJob[]): string {
  const hash = createHash('sha256').update('batch\n')
  for (const job of jobs) hash.update(JSON.stringify([job.category, job.eventType, job.description, job.platformUsername, job.platformUserId, job.issuedBy, job.code])).update('\n')
  return hash.digest('base64url')
}
