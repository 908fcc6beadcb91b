/**
 * The HTTP front: the server (hyper-express 6 on uWS, the one other file besides pipeline.ts that knows it), its route
 * families (src/http/routes/, one file each) registered through the pipeline, and the not-found and error handlers.
 * It reads only Redis (lookups, rate limits, keys) and hands writes to BullMQ; it never touches MySQL on a request
 * path, except the info and safety routes (routes/staff.ts), which read infractions and the watchlist there, the
 * players route (a returning player's codes) and the push subscriptions (whether the key has a push target).
 */
import HyperExpress from 'hyper-express'
import type { IdentifiedEvent } from '../queue/log-batcher.js'
import type { BindJob, BindJobResult, LogJob } from '../queue/model/jobs.js'
import type { IdempotencyClaim } from '../redis/idempotency-keys.js'
import { createPipeline, type PipelineDeps } from './pipeline.js'
import * as bind from './routes/bind.js'
import * as blocks from './routes/blocks.js'
import * as health from './routes/health.js'
import * as log from './routes/log.js'
import * as players from './routes/players.js'
import * as push from './routes/push.js'
import * as sse from './routes/sse.js'
import * as staff from './routes/staff.js'
import * as ws from './routes/ws.js'
import { createStreamOpening, type StreamDeps } from './stream-opening.js'

/** Everything the front needs, built by the entry point (real clients in production and in tests). */
export interface FrontDeps extends PipelineDeps {
  /** Enqueues a bind job and waits for its result; null when it did not finish in time. Throws when Redis is down. */
  submitBind(job: BindJob): Promise<BindJobResult | null>
  /** Enqueues a log job durably under `jobId`. Throws when Redis is down. */
  submitLog(job: LogJob, jobId: string): Promise<void>
  /** Enqueues a client's batch of log events as one unit, in one job. Throws when Redis is down. */
  submitLogs(events: readonly IdentifiedEvent[]): Promise<void>
  /**
   * Claims an idempotency key's job id for an event fingerprint (src/redis/idempotency-keys.ts). Throws when Redis is
   * down. Without it a key still stores its event once, but a reuse for another event is not refused.
   */
  claimIdempotencyKey?(jobId: string, fingerprint: string): Promise<IdempotencyClaim>
  /** Reachability of Redis and MySQL. */
  checkReady: health.HealthDeps['checkReady']
  /** Reads behind the info and safety routes; without them those routes are not served. */
  staff?: staff.StaffDeps
  /** The stream hub and its hooks; without them the stream routes are not served. */
  streams?: StreamDeps
  /** Push subscriptions (targets in MySQL, subscriptions in Redis); without them the route is not served. */
  push?: push.PushDeps
  /** The returning-player lookup (MySQL); without it the route is not served. */
  players?: players.PlayersDeps
}

/** A built front, as its runtime sees it: listen, close, and the port it listens on. */
export interface FrontServer {
  listen(port: number, host: string): Promise<unknown>
  /**
   * Stops listening and resolves once the requests already in a handler are answered; a request that arrives later
   * on a kept-alive connection is answered 503 with Connection: close.
   */
  close(): Promise<void>
  readonly port: number
}

/** Builds the server with every route; the caller listens and closes it. */
export function createFrontApp(deps: FrontDeps): FrontServer {
  assertAbortSafeBodies()
  // hyper-express answers a declared length over max_body_length itself, with an empty 413, before any handler runs
  // (so before the key is checked) and only once the whole body has arrived. Its limit is therefore off; ours
  // (the kit's readJson: MAX_BODY_BYTES, declared length required) runs after the key check and answers JSON at once.
  const server = new HyperExpress.Server({ max_body_length: Number.POSITIVE_INFINITY, trust_proxy: false })
  const pipeline = createPipeline(deps)
  const { kit } = pipeline
  const app = pipeline.routes(server)

  blocks.register(app, kit, deps)
  const opening = deps.streams === undefined ? undefined : createStreamOpening(deps.config, deps.log, kit, deps.streams)
  if (opening !== undefined) sse.register(app, kit, { opening })
  ws.register(app, kit, opening === undefined ? {} : { opening })
  bind.register(app, kit, deps)
  log.register(app, kit, deps)
  if (deps.staff !== undefined) staff.register(app, kit, { ...deps.staff, submitLog: deps.submitLog, log: deps.log })
  if (deps.push !== undefined) push.register(app, kit, deps.push)
  if (deps.players !== undefined) players.register(app, kit, deps.players)
  health.register(app, kit, deps)

  server.set_not_found_handler(pipeline.notFound)
  server.set_error_handler(pipeline.failed)
  return {
    listen: (port, host) => server.listen(port, host),
    async close() {
      server.close()
      await pipeline.drain()
    },
    get port() {
      return server.port
    },
  }
}

/**
 * Refuses to build a front on an unpatched hyper-express: 6.17 calls into an aborted or ended uWS response from its
 * body parser (an uncaught exception that ends the worker) unless patches/hyper-express+6.17.4.patch is applied,
 * which `npm ci` does (package.json postinstall). `npm ci --ignore-scripts` skips it.
 */
function assertAbortSafeBodies(): void {
  const prototype = (HyperExpress as unknown as { Request: { prototype: Record<string, unknown> } }).Request.prototype
  if (typeof prototype._response_finished !== 'function') {
    throw new Error('hyper-express is not patched (patches/hyper-express+6.17.4.patch): run `npm ci` without --ignore-scripts, or `npx patch-package`')
  }
}
