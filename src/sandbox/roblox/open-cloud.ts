/*
 * The fake Roblox Open Cloud messaging API under /open-cloud: `POST /cloud/v2/universes/{universe}:publishMessage`
 * with `x-api-key` and `{"topic", "message"}`, as creator-docs describes it (cloud/guides/usage-messaging,
 * cloud/reference/errors): 200 with an empty body, or a v2 error `{code, message, details}`. It checks the key per
 * universe (401 for an unknown key, 403 for a key not granted that universe), refuses a topic over 80 characters or a
 * message over 1,024 bytes (400 INVALID_ARGUMENT), counts publishes per key against the owner's 5,000 a minute (429
 * RESOURCE_EXHAUSTED with Retry-After), answers an injected 429 or 500 the next N times, and records every accepted
 * message for `GET /control/open-cloud/messages` (the Lua harness reads them as MessagingService:SubscribeAsync would).
 */
import type { Reply } from '../http-reply.js'
import { json } from '../http-reply.js'
import type { RequestInfo } from '../http-router.js'
import { isObject } from '../read-body.js'

/** Roblox's limit on a message, in bytes of its UTF-8 text. */
export const OPEN_CLOUD_MESSAGE_MAX_BYTES = 1024

/** Roblox's limit on a topic name, in characters. */
export const OPEN_CLOUD_TOPIC_MAX = 80

/** Publishes per minute per key owner (each fake key counts as its own owner). */
export const OPEN_CLOUD_OWNER_PER_MINUTE = 5000

/** Messages kept for the control API (the oldest are forgotten past it). */
export const OPEN_CLOUD_MESSAGES_KEPT = 100_000

/** One accepted publish, as the control API lists it. */
export interface PublishedMessage {
  seq: number
  universe_id: number
  topic: string
  message: string
  at: string
}

/** The fake's state: accepted keys, the injected failure, what was published. */
export interface OpenCloudState {
  /** Accepted key per universe id. */
  keys: Map<number, string>
  /** The status the next `times` publishes answer (after the key check), and the Retry-After of an injected 429. */
  failure: { status: 429 | 500; times: number; retryAfterSeconds: number | null } | null
  messages: PublishedMessage[]
  nextSeq: number
  /** Publish times (epoch ms) per key over the last minute, for the owner's limit. */
  recent: Map<string, number[]>
  reset(): void
}

/** An empty state. */
export function createOpenCloudState(): OpenCloudState {
  const state: OpenCloudState = {
    keys: new Map(),
    failure: null,
    messages: [],
    nextSeq: 1,
    recent: new Map(),
    reset() {
      state.keys.clear()
      state.failure = null
      state.messages = []
      state.recent.clear()
    },
  }
  return state
}

/** A v2 Open Cloud error reply. */
export function openCloudError(status: number, code: string, message: string, headers?: Record<string, string>): Reply {
  return json(status, { code, message, details: [] }, headers)
}

const PUBLISH_PATH = /^\/cloud\/v2\/universes\/([^/:]+):publishMessage$/

/** The route template of the publish, for the request counter. */
export const PUBLISH_TEMPLATE = '/open-cloud/cloud/v2/universes/:universe:publishMessage'

function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}

function keyCheck(state: OpenCloudState, universe: number, key: string | undefined): Reply | null {
  if (key === undefined || key === '') return openCloudError(401, 'UNAUTHENTICATED', 'Invalid API Key')
  if (state.keys.get(universe) === key) return null
  for (const accepted of state.keys.values()) {
    if (accepted === key) return openCloudError(403, 'PERMISSION_DENIED', `The API key is not granted universe-messaging-service:publish for universe ${universe}.`)
  }
  return openCloudError(401, 'UNAUTHENTICATED', 'Invalid API Key')
}

function ownerLimit(state: OpenCloudState, key: string, now: number): Reply | null {
  const times = (state.recent.get(key) ?? []).filter((at) => at > now - 60_000)
  state.recent.set(key, times)
  if (times.length < OPEN_CLOUD_OWNER_PER_MINUTE) {
    times.push(now)
    return null
  }
  const retryAfter = Math.max(1, Math.ceil((times[0]! + 60_000 - now) / 1000))
  return openCloudError(429, 'RESOURCE_EXHAUSTED', 'Too many requests.', { 'retry-after': String(retryAfter) })
}

function injected(state: OpenCloudState): Reply | null {
  const failure = state.failure
  if (failure === null || failure.times <= 0) return null
  failure.times--
  if (failure.times === 0) state.failure = null
  if (failure.status === 500) return openCloudError(500, 'INTERNAL', 'Internal server error.')
  return openCloudError(429, 'RESOURCE_EXHAUSTED', 'Too many requests.', failure.retryAfterSeconds === null ? undefined : { 'retry-after': String(failure.retryAfterSeconds) })
}

/**
 * Answers one request under /open-cloud (`path` without that prefix); null when it is not the publish route. `now` is
 * the clock in epoch ms.
 */
export function handleOpenCloud(state: OpenCloudState, req: Pick<RequestInfo, 'method' | 'path' | 'headers' | 'body'>, now: number): Reply | null {
  const match = PUBLISH_PATH.exec(req.path)
  if (match === null) return null
  if (req.method !== 'POST') return openCloudError(404, 'NOT_FOUND', 'Not found.')
  const universe = /^[1-9][0-9]{0,15}$/.test(match[1]!) ? Number(match[1]) : Number.NaN
  if (!Number.isSafeInteger(universe)) return openCloudError(400, 'INVALID_ARGUMENT', 'Invalid universe id.')
  const header = req.headers['x-api-key']
  const key = Array.isArray(header) ? header[0] : header
  const refused = keyCheck(state, universe, key) ?? injected(state)
  if (refused !== null) return refused
  const body = isObject(req.body) ? req.body : null
  if (body === null || typeof body.topic !== 'string' || typeof body.message !== 'string') {
    return openCloudError(400, 'INVALID_ARGUMENT', 'The request body must have a string topic and a string message.')
  }
  if (body.topic.length < 1 || body.topic.length > OPEN_CLOUD_TOPIC_MAX) {
    return openCloudError(400, 'INVALID_ARGUMENT', `Topic must be 1 to ${OPEN_CLOUD_TOPIC_MAX} characters.`)
  }
  const size = utf8Length(body.message)
  if (size > OPEN_CLOUD_MESSAGE_MAX_BYTES) {
    return openCloudError(400, 'INVALID_ARGUMENT', `Message size ${size} exceeds the limit of ${OPEN_CLOUD_MESSAGE_MAX_BYTES} bytes.`)
  }
  const limited = ownerLimit(state, key!, now)
  if (limited !== null) return limited
  state.messages.push({ seq: state.nextSeq++, universe_id: universe, topic: body.topic, message: body.message, at: new Date(now).toISOString() })
  if (state.messages.length > OPEN_CLOUD_MESSAGES_KEPT) state.messages.splice(0, state.messages.length - OPEN_CLOUD_MESSAGES_KEPT)
  // Roblox answers a publish with 200 and an empty body.
  return { status: 200 }
}
