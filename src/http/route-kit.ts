/** The front's shared route machinery (request context, wrapper, rate limits, auth, JSON bodies), as the route modules see it. */
import type { Request, Response } from 'hyper-express'
import type * as v from 'valibot'
import type { LimitedRoute } from '../redis/rate-limits.js'
import type { Reply } from './respond.js'

/** The per-request context the front's wrapper builds. */
export interface RequestCtx {
  route: string
  requestId: string
  ip: string
  /** The key of the per-client limits: the IPv4 address or the IPv6 /64 of `ip` (http/model/client-key.ts). */
  client: string
  started: bigint
  /** RateLimit-* headers of the route's limit, set by the rate-limit check and added to whatever the reply is. */
  limitHeaders?: Record<string, string>
}

/** The front's shared route machinery, handed over by createFrontApp to the route modules. */
export interface RouteKit {
  wrap(route: string, handler: (req: Request, res: Response, ctx: RequestCtx) => Promise<Reply>): (req: Request, res: Response) => void
  limited(route: LimitedRoute, ctx: RequestCtx): Promise<Reply | null>
  authorize(req: Request): Promise<{ ok: true; keyName: string } | { ok: false; reply: Reply }>
  readJson(req: Request): Promise<{ ok: true; value: unknown } | { ok: false; reply: Reply }>
  validateBody<S extends v.GenericSchema>(schema: S, value: unknown): { ok: true; value: v.InferOutput<S> } | { ok: false; reply: Reply }
}
