/**
 * `POST /api/v1/push/subscriptions` (bearer): a game server declares the codes of its players for push through Open
 * Cloud messaging. Each call replaces that server's subscription (per API key, universe and JobId) and it lapses after
 * PUSH_SUBSCRIPTION_SECONDS unless renewed; an empty codes list ends it. 404 `push_target_not_found` when the key has
 * no push target for the universe (`presence-link push add`). Its own rate limit (RATE_LIMITS `push=`, 60/60).
 */
import { distinctCodes, SubscriptionRequestSchema } from '../../push/model/subscription.js'
import { ErrorCode } from '../model/error-codes.js'
import { jsonError, jsonOk } from '../respond.js'
import type { HttpApp, RouteKit } from '../route-kit.js'

/** What the push route needs, built by the front runtime. */
export interface PushDeps {
  /** Whether the active API key `keyId` has a push target for `universe` (MySQL). */
  hasTarget(keyId: string, universe: number): Promise<boolean>
  /** Replaces a server's subscription (redis/push-subscriptions.ts). */
  subscribe(keyId: string, universe: number, serverId: string, codes: readonly string[], lifeMs: number): Promise<number>
  /** PUSH_SUBSCRIPTION_SECONDS. */
  subscriptionSeconds: number
}

/** Registers the subscriptions route. */
export function register(app: HttpApp, kit: RouteKit, deps: PushDeps): void {
  app.post('/api/v1/push/subscriptions', 'push', async (req, ctx) => {
    const auth = await kit.keyed('push', req, ctx)
    if (!auth.ok) return auth.reply
    const parsed = await kit.readBody(req, SubscriptionRequestSchema)
    if (!parsed.ok) return parsed.reply
    const { universe_id: universe, server_id: serverId, codes } = parsed.value
    if (!(await deps.hasTarget(auth.keyId, universe))) {
      return jsonError(
        404,
        ErrorCode.PushTargetNotFound,
        `this API key has no push target for universe ${universe}: the operator attaches one with presence-link push add --key ${auth.keyName} --universe ${universe} --open-cloud-key-file PATH`,
      )
    }
    await deps.subscribe(auth.keyId, universe, serverId, distinctCodes(codes), deps.subscriptionSeconds * 1000)
    return jsonOk({ status: 'subscribed', expires_in: deps.subscriptionSeconds })
  })
}
