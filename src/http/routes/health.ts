/** `GET /healthz` (the process answers) and `GET /readyz` (Redis and MySQL reachable), served even while Redis is down. */
import type { DependencyStates } from '../../health/readiness.js'
import type { HttpApp, RouteKit } from '../route-kit.js'

/** What the health routes need. */
export interface HealthDeps {
  /** Reachability of Redis and MySQL (a dependency not named is down). */
  checkReady(): Promise<DependencyStates>
}

/** Registers the health routes. */
export function register(app: HttpApp, _kit: RouteKit, deps: HealthDeps): void {
  app.get('/healthz', 'healthz', async () => ({ status: 200, type: 'text', body: 'ok\n' }), { withoutRedis: true })
  app.get(
    '/readyz',
    'readyz',
    async () => {
      const states = await deps.checkReady()
      const r = { redis: states.redis === true, mysql: states.mysql === true }
      // Without MySQL the front still serves callbacks, rpc and log accepts from Redis: a load balancer must keep
      // routing to it, so that is 200 "degraded". Without Redis nothing works: 503 (docs/decisions.md, 2026-11-23).
      const status = !r.redis ? 'not_ready' : r.mysql ? 'ready' : 'degraded'
      return { status: r.redis ? 200 : 503, type: 'json', body: JSON.stringify({ status, redis: r.redis ? 'ok' : 'down', mysql: r.mysql ? 'ok' : 'down' }) }
    },
    { withoutRedis: true },
  )
}
