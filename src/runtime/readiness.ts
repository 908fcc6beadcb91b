/**
 * Readiness of a process: which of its dependencies (Redis, MySQL, Discord) it reaches right now. Each check is
 * bounded in time, feeds `presence_link_dependency_up`, and runs every few seconds even when nobody asks, so the
 * gauge follows an outage without /readyz being polled.
 */
import type { Redis } from 'ioredis'
import type { Kysely } from 'kysely'
import type { DependencyGauge } from '../metrics/dependency-metrics.js'
import type { Dependency } from '../metrics/metric-names.js'
import { mysqlReachable } from '../mysql/connection.js'
import type { Database } from '../mysql/schema.js'
import type { ProcessContext } from './process-context.js'

/** Reachability per dependency the process uses. */
export type DependencyStates = Partial<Record<Dependency, boolean>>

/** Runs every check once; resolves with each dependency's state. */
export type Readiness = () => Promise<DependencyStates>

/** A check: resolves true when the dependency answers. */
export type DependencyCheck = () => Promise<boolean>

/** A check that never waits longer than this; a hung dependency counts as down. */
const CHECK_TIMEOUT_MS = 2000

/** How often the checks run in the background. */
const CHECK_EVERY_MS = 5000

async function within(check: DependencyCheck, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  try {
    return await Promise.race([check().catch(() => false), late])
  } finally {
    clearTimeout(timer)
  }
}

/** Redis answers PING on `redis` (a fail-fast connection: a disconnected one fails at once). */
export function redisCheck(redis: Redis): DependencyCheck {
  return async () => redis.status === 'ready' && (await redis.ping()) === 'PONG'
}

/** MySQL answers `SELECT 1` on `db`. */
export function mysqlCheck(db: Kysely<Database>): DependencyCheck {
  return () => mysqlReachable(db)
}

/** Builds the readiness function over `checks`, setting `gauge` at every run. */
export function createReadiness(checks: Partial<Record<Dependency, DependencyCheck>>, gauge?: DependencyGauge): Readiness {
  const entries = Object.entries(checks) as Array<[Dependency, DependencyCheck]>
  return async () => {
    const results = await Promise.all(entries.map(async ([dep, check]) => [dep, await within(check, CHECK_TIMEOUT_MS)] as const))
    const states: DependencyStates = {}
    for (const [dep, up] of results) {
      states[dep] = up
      gauge?.(dep, up)
    }
    return states
  }
}

/** Runs `readiness` every few seconds until shutdown, logging each change of the set of missing dependencies. */
export function keepCheckingReadiness(ctx: ProcessContext, readiness: Readiness, everyMs = CHECK_EVERY_MS): void {
  let running = false
  let missing = ''
  const run = () => {
    if (running) return
    running = true
    readiness()
      .then((states) => {
        const now = Object.entries(states)
          .filter(([, up]) => !up)
          .map(([dep]) => dep)
          .join(',')
        if (now !== missing) {
          if (now === '') ctx.log.info({ was: missing.split(',') }, 'every dependency is reachable')
          else ctx.log.warn({ missing: now.split(',') }, 'dependencies missing')
          missing = now
        }
      })
      .catch((err: Error) => ctx.log.warn({ err: err.message }, 'readiness check failed'))
      .finally(() => {
        running = false
      })
  }
  run()
  const timer = setInterval(run, everyMs)
  timer.unref()
  ctx.shutdown.register('readiness', () => clearInterval(timer))
}

/** The JSON body and status of a readiness answer; `critical` dependencies make it 503, the others only "degraded". */
export function readinessReply(states: DependencyStates, critical: readonly Dependency[]): { status: number; body: string } {
  const down = (Object.entries(states) as Array<[Dependency, boolean]>).filter(([, up]) => !up).map(([dep]) => dep)
  const fatal = down.some((dep) => critical.includes(dep))
  const status = down.length === 0 ? 'ready' : fatal ? 'not_ready' : 'degraded'
  const body: Record<string, unknown> = { status }
  for (const [dep, up] of Object.entries(states)) body[dep] = up ? 'ok' : 'down'
  return { status: fatal ? 503 : 200, body: JSON.stringify(body) }
}

/** The /readyz answer of a part whose dependencies are all critical; 503 "starting" until `started()` is true. */
export function partReadyCheck(readiness: Readiness, started: () => boolean): () => Promise<{ status: number; body: string }> {
  return async () => {
    const states = await readiness()
    const reply = readinessReply(states, Object.keys(states) as Dependency[])
    if (reply.status === 200 && !started()) return { status: 503, body: JSON.stringify({ ...JSON.parse(reply.body), status: 'starting' }) }
    return reply
  }
}

/**
 * Waits until every dependency of `readiness` answers and `prepare` (creating the database, say) succeeds, logging
 * what is missing once per change; a part started while Redis or MySQL is down waits instead of exiting.
 */
export async function waitForDependencies(ctx: ProcessContext, readiness: Readiness, prepare?: () => Promise<void>, everyMs = 1000): Promise<void> {
  let reported = ''
  for (;;) {
    if (ctx.shutdown.closing) throw new Error('shutting down while waiting for dependencies')
    // Prepared first: a check on a database that does not exist yet fails until it is created.
    const prepared = prepare === undefined || (await prepare().then(() => true, () => false))
    const states = await readiness()
    const missing = (Object.entries(states) as Array<[Dependency, boolean]>).filter(([, up]) => !up).map(([dep]) => dep)
    if (prepared && missing.length === 0) {
      if (reported !== '') ctx.log.info('dependencies reachable; starting')
      return
    }
    const now = missing.join(',') || 'prepare'
    if (now !== reported) ctx.log.warn({ missing }, 'waiting for dependencies before starting')
    reported = now
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}
