/** `GET /healthz` (the process answers) and `GET /readyz` (Redis and MySQL reachable), served even while Redis is down. */
import type { HttpApp, RouteKit } from '../route-kit.js'

/** What the health routes need. */
export interface HealthDeps {
  /** Reachability of Redis and MySQL. */
  checkReady(): Promise<{ redis: boolean; mysql: boolean }>
}

/** Registers the health routes. */
export function register(app: HttpApp, _kit: RouteKit, deps: HealthDeps): void {
  app.get('/healthz', 'healthz', async () => ({ status: 200, type: 'text', body: 'ok\n' }), { withoutRedis: true })
  app.get(
    '/readyz',
    'readyz',
    async () => {
      const r = await deps.checkReady()
      // Without MySQL the front still serves callbacks, rpc and log accepts from Redis: a load balancer must keep
      // routing to it, so that is 200 "degraded". Without Redis nothing works: 503 (docs/decisions.md, 2026-11-23).
      const status = !r.redis ? 'not_ready' : r.mysql ? 'ready' : 'degraded'
      return { status: r.redis ? 200 : 503, type: 'json', body: JSON.stringify({ status, redis: r.redis ? 'ok' : 'down', mysql: r.mysql ? 'ok' : 'down' }) }
    },
    { withoutRedis: true },
  )
}
