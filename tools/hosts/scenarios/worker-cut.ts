/**
 * `worker` is cut off under log load, then comes back: every event the service accepted (answered `logged`) is
 * stored in MySQL exactly once, and the backlog drains after the return.
 */
import { sql } from 'kysely'
import { call } from '../clients.js'
import type { Deployment } from '../deployment.js'
import { cutHost, restoreHost } from '../netns.js'
import { counts, seconds, type ScenarioOutcome } from '../scenario.js'
import { CLIENT_ADDRESSES } from '../topology.js'
import { pause } from '../watchers.js'

const LOGS_PER_SECOND = 50
const BEFORE_MS = 8000
const CUT_MS = 20_000
const AFTER_MS = 10_000

interface LogLoad {
  accepted: Set<string>
  sent: number
  errors: Map<string, number>
  stop(): Promise<void>
}

function startLogLoad(dep: Deployment, tag: string): LogLoad {
  const load: LogLoad = { accepted: new Set(), sent: 0, errors: new Map(), stop: async () => undefined }
  let stopped = false
  const inFlight = new Set<Promise<void>>()
  const started = Date.now()
  const tick = async () => {
    while (!stopped) {
      const due = Math.floor(((Date.now() - started) / 1000) * LOGS_PER_SECOND)
      while (load.sent < due) {
        const n = load.sent++
        const id = `${tag}#${n}`
        const p = call(`${dep.api}/log/server`, {
          from: CLIENT_ADDRESSES[n % CLIENT_ADDRESSES.length]!,
          body: { event_type: tag, description: id },
          headers: { authorization: dep.bearer },
        }).then((r) => {
          if (r.status === 200 && r.text.includes('"logged"')) load.accepted.add(id)
          else {
            const kind = r.status === 0 ? (r.error ?? 'failed') : `HTTP ${r.status}`
            load.errors.set(kind, (load.errors.get(kind) ?? 0) + 1)
          }
        })
        inFlight.add(p)
        void p.finally(() => inFlight.delete(p))
      }
      await pause(10)
    }
  }
  const loop = tick()
  load.stop = async () => {
    stopped = true
    await loop
    await Promise.all([...inFlight])
  }
  return load
}

async function storedCounts(dep: Deployment, tag: string): Promise<Map<string, number>> {
  const rows = await dep.db
    .selectFrom('log_entries')
    .select(['description', sql<number>`COUNT(*)`.as('n')])
    .where('event_type', '=', tag)
    .groupBy('description')
    .execute()
  return new Map(rows.map((r) => [r.description, Number(r.n)]))
}

/** Runs the scenario. */
export async function workerCutScenario(dep: Deployment, log: (m: string) => void): Promise<ScenarioOutcome> {
  const title = `${LOGS_PER_SECOND} log events a second through the balancer; the worker's link goes down ${BEFORE_MS / 1000} s in, for ${CUT_MS / 1000} s; load goes on ${AFTER_MS / 1000} s after its return`
  const problems: string[] = []
  const tag = `hosts_worker_${Date.now().toString(36)}`
  const load = startLogLoad(dep, tag)
  let restoredAt = 0
  let backlog = 0
  let caughtUpAt: number | null = null
  try {
    await pause(BEFORE_MS)
    cutHost('worker')
    log('worker-cut: worker cut off')
    await pause(CUT_MS)
    restoredAt = Date.now()
    const acceptedBefore = [...load.accepted]
    backlog = acceptedBefore.length - (await storedCounts(dep, tag)).size
    restoreHost('worker')
    log('worker-cut: worker restored')
    // How long until every event accepted before the return is stored (the load goes on meanwhile).
    const until = restoredAt + 120_000
    while (Date.now() < until) {
      const stored = await storedCounts(dep, tag)
      if (acceptedBefore.every((id) => stored.has(id))) {
        caughtUpAt = Date.now()
        break
      }
      await pause(250)
    }
    await pause(Math.max(0, restoredAt + AFTER_MS - Date.now()))
  } finally {
    restoreHost('worker')
    await load.stop()
  }
  const accepted = load.accepted
  let stored = await storedCounts(dep, tag)
  const deadline = Date.now() + 120_000
  while ([...accepted].some((id) => !stored.has(id)) && Date.now() < deadline) {
    await pause(500)
    stored = await storedCounts(dep, tag)
  }
  const lost = [...accepted].filter((id) => !stored.has(id))
  const duplicated = [...stored.values()].filter((n) => n > 1).length
  const unacknowledged = [...stored.keys()].filter((id) => !accepted.has(id)).length
  if (lost.length > 0) problems.push(`${lost.length} accepted events were never stored (first ${lost.slice(0, 3).join(', ')})`)
  if (duplicated > 0) problems.push(`${duplicated} events were stored more than once`)
  if (load.errors.size > 0) problems.push(`log requests failed while the worker was away: ${counts(load.errors)}`)
  if (caughtUpAt === null) problems.push('the backlog from the cut was not stored within 120 s of the return')
  return {
    name: 'worker-cut',
    title,
    figures: [
      { label: 'events sent / accepted (`logged`)', value: `${load.sent} / ${accepted.size}` },
      { label: 'stored in MySQL / lost / stored twice', value: `${stored.size - unacknowledged} / ${lost.length} / ${duplicated}` },
      { label: 'stored without an acknowledgement (a request cut short)', value: String(unacknowledged) },
      { label: 'client errors', value: counts(load.errors) },
      { label: 'accepted but not stored when the link came back (the backlog)', value: String(backlog) },
      { label: 'link back → the backlog stored', value: seconds(caughtUpAt === null ? null : caughtUpAt - restoredAt) },
    ],
    problems,
  }
}
