/**
 * Readiness of a process: which of its dependencies (Redis, MySQL, Discord) it reaches right now, and why not. Each
 * check is bounded in time, feeds `presence_link_dependency_up`, and runs every few seconds even when nobody asks,
 * so the gauge follows an outage without /readyz being polled. The reason of a missing dependency (MySQL's `Access
 * denied for user ...`) is logged at error level once per change and passed to `serve` (part-started.ts).
 */
import type { DependencyGauge } from '../metrics/dependency-metrics.js'
import type { Dependency } from '../metrics/metric-names.js'
import { reportWaiting } from '../lib/part-started.js'
import type { ProcessBasics } from '../lib/process-basics.js'

/** Reachability per dependency the process uses. */
export type DependencyStates = Partial<Record<Dependency, boolean>>

/** Why each unreachable dependency is down, as its last check saw it (`Access denied for user ...`). */
export type DependencyReasons = Partial<Record<Dependency, string>>

/** Runs every check once; resolves with each dependency's state. `reasons()` says why, as of the last run. */
export interface Readiness {
  (): Promise<DependencyStates>
  reasons(): DependencyReasons
}

/** A check: resolves true when the dependency answers; false, or a rejection whose message is the reason, when not. */
export type DependencyCheck = () => Promise<boolean>

/** A check that never waits longer than this; a hung dependency counts as down. */
export const CHECK_TIMEOUT_MS = 2000

/** How often the checks run in the background. */
const CHECK_EVERY_MS = 5000

async function within(check: DependencyCheck, ms: number): Promise<{ up: boolean; reason?: string }> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<{ up: boolean; reason: string }>((resolve) => {
    timer = setTimeout(() => resolve({ up: false, reason: `no answer within ${ms / 1000} s` }), ms)
  })
  try {
    const answered = check().then(
      (up) => (up ? { up } : { up, reason: 'not reachable' }),
      (err: unknown) => ({ up: false, reason: err instanceof Error ? err.message : String(err) }),
    )
    return await Promise.race([answered, late])
  } finally {
    clearTimeout(timer)
  }
}

/** Builds the readiness function over `checks`, setting `gauge` at every run. */
export function createReadiness(checks: Partial<Record<Dependency, DependencyCheck>>, gauge?: DependencyGauge): Readiness {
  const entries = Object.entries(checks) as Array<[Dependency, DependencyCheck]>
  let reasons: DependencyReasons = {}
  const run = async () => {
    const results = await Promise.all(entries.map(async ([dep, check]) => [dep, await within(check, CHECK_TIMEOUT_MS)] as const))
    const states: DependencyStates = {}
    const why: DependencyReasons = {}
    for (const [dep, { up, reason }] of results) {
      states[dep] = up
      if (!up) why[dep] = reason ?? 'not reachable'
      gauge?.(dep, up)
    }
    reasons = why
    return states
  }
  return Object.assign(run, { reasons: () => ({ ...reasons }) })
}

/** The reasons on one line (pure): `mysql: Access denied for user ...; redis: connect ECONNREFUSED ...`. */
export function reasonLine(reasons: DependencyReasons): string {
  return (Object.entries(reasons) as Array<[Dependency, string]>).map(([dep, why]) => `${dep}: ${why}`).join('; ')
}

/**
 * Runs `readiness` every few seconds until shutdown, logging each change of what is missing and why (error level)
 * and telling `serve` (part-started.ts).
 */
export function keepCheckingReadiness(ctx: ProcessBasics, readiness: Readiness, everyMs = CHECK_EVERY_MS): void {
  let running = false
  let missing = ''
  let reported = ''
  const run = () => {
    if (running) return
    running = true
    readiness()
      .then((states) => {
        const now = Object.entries(states)
          .filter(([, up]) => !up)
          .map(([dep]) => dep)
          .join(',')
        const reason = now === '' ? '' : reasonLine(readiness.reasons())
        if (now !== missing || reason !== reported) {
          if (now === '') ctx.log.info({ was: missing.split(',') }, 'every dependency is reachable')
          else ctx.log.error({ missing: now.split(','), reason }, 'dependencies missing')
          missing = now
          reported = reason
          reportWaiting(reason)
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
 * Waits until every dependency of `readiness` answers and `prepare` (creating the database, say) succeeds; a part
 * started while Redis or MySQL is down (or refuses the login) waits instead of exiting. What is missing and why
 * (MySQL's `Access denied for user ...`) is logged at error level once per change, not per retry, and told to `serve`.
 */
export async function waitForDependencies(ctx: ProcessBasics, readiness: Readiness, prepare?: () => Promise<void>, everyMs = 1000): Promise<void> {
  let reported = ''
  for (;;) {
    if (ctx.shutdown.closing) throw new Error('shutting down while waiting for dependencies')
    // Prepared first: a check on a database that does not exist yet fails until it is created.
    const unprepared = prepare === undefined ? '' : await prepare().then(() => '', (err: unknown) => (err instanceof Error ? err.message : String(err)) || 'failed')
    const states = await readiness()
    const missing = (Object.entries(states) as Array<[Dependency, boolean]>).filter(([, up]) => !up).map(([dep]) => dep)
    if (unprepared === '' && missing.length === 0) {
      if (reported !== '') {
        ctx.log.info('dependencies reachable; starting')
        reportWaiting('')
      }
      return
    }
    // A check's reason is the server's own; preparing only adds one when no check explains the failure.
    const reason = missing.length > 0 ? reasonLine(readiness.reasons()) : unprepared
    if (reason !== reported) {
      ctx.log.error({ missing, reason }, 'waiting for dependencies before starting')
      reportWaiting(reason)
    }
    reported = reason
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}
