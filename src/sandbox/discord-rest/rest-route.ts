/*
 * The shape of a fake Discord REST route and the helpers every resource file shares: `Authorization: Bot` required
 * or not, the params that split its rate-limit bucket (as Discord's "major parameters") and the kind of bucket it
 * takes (rate-limits.ts), body and param access, and
 * the Discord 400 answers for message bodies (50006 empty, 50035 with an `errors` tree).
 */
import type { SandboxContext } from '../context.js'
import type { Reply } from '../http-reply.js'
import type { RequestInfo, Route } from '../http-router.js'
import { isObject } from '../read-body.js'
import { discordError } from './discord-errors.js'
import { checkMessage } from './message-rules.js'
import type { BucketKind } from './rate-limits.js'

/**
 * A Discord REST route: `auth` requires `Authorization: Bot <token>`; `major` names the params that split its
 * rate-limit bucket; `bucket` is the kind of bucket it takes (never `global`, which every authenticated call takes too).
 */
export interface RestRoute extends Route<SandboxContext> {
  auth: boolean
  major: string[]
  bucket: Exclude<BucketKind, 'global'>
}

/** A REST route handler. */
export type Handler = RestRoute['handler']

/** A route; `auth` defaults to true (webhook and interaction-callback routes pass false, as on Discord). */
export const route = (method: string, template: string, major: string[], handler: Handler, auth = true): RestRoute => ({
  method,
  template,
  major,
  handler,
  auth,
  bucket: 'route',
})

/** The same route taking a bucket of its own kind (message create, webhook execute). */
export const limitedAs = (bucket: RestRoute['bucket'], r: RestRoute): RestRoute => ({ ...r, bucket })

/** The JSON object body, or `{}` for anything else. */
export const bodyOf = (req: RequestInfo): Record<string, unknown> => (isObject(req.body) ? req.body : {})

/** A path parameter, or '' when absent. */
export const param = (req: RequestInfo, name: string): string => req.params[name] ?? ''

/** The Discord error for a message body that breaks the limits (or is empty when `requireBody`), else null. */
export function messageProblem(body: Record<string, unknown>, requireBody: boolean): Reply | null {
  const check = checkMessage(body, requireBody)
  if (check.ok) return null
  if (check.error === 'emptyMessage') return discordError('emptyMessage')
  return discordError('invalidFormBody', { errors: check.errors })
}

/** Discord's 50035 Invalid Form Body with one field error. */
export function formError(field: string, code: string, message: string): Reply {
  return discordError('invalidFormBody', { errors: { [field]: { _errors: [{ code, message }] } } })
}

/** True for a {@link Reply} (handlers return either a found record or the error reply). */
export function isReply(value: unknown): value is Reply {
  return isObject(value) && typeof value.status === 'number' && !('name' in value)
}
