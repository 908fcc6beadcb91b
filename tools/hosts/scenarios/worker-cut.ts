/**
 * `worker` is cut off under log load, then comes back: every event the service accepted (answered `logged`) is
 * stored in MySQL exactly once, and the backlog drains after the return.
 */
import type { Deployment } from '../deployment.js'
import { cutHost, restoreHost } from '../netns.js'
import { counts, seconds, tally, type ScenarioOutcome } from '../scenario.js'
import { checkLogs, startLogLoad, storedCounts } from '../steady-load.js'
import { pause } from '../watchers.js'

const LOGS_PER_SECOND = 50
const BEFORE_MS = 8000
const CUT_MS = 20_000
const AFTER_MS = 10_000

/** Runs the scenario. */
export async function workerCutScenario(dep: Deployment, log: (m: string) => void): Promise<ScenarioOutcome> {
  const title = `${LOGS_PER_SECOND} log events a second through the balancer; the worker's link goes down ${BEFORE_MS / 1000} s in, for ${CUT_MS / 1000} s; load goes on ${AFTER_MS / 1000} s after its return`
  const problems: string[] = []
  const tag = `hosts_worker_${Date.now().toString(36)}`
  const load = startLogLoad(dep, tag, LOGS_PER_SECOND)
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
  const { stored, lost, duplicated, unacknowledged } = await checkLogs(dep, load)
  const errors = tally(load.outcomes.filter((o) => o.result !== '200 logged').map((o) => o.result))
  if (lost.length > 0) problems.push(`${lost.length} accepted events were never stored (first ${lost.slice(0, 3).join(', ')})`)
  if (duplicated > 0) problems.push(`${duplicated} events were stored more than once`)
  if (errors.size > 0) problems.push(`log requests failed while the worker was away: ${counts(errors)}`)
  if (caughtUpAt === null) problems.push('the backlog from the cut was not stored within 120 s of the return')
  return {
    name: 'worker-cut',
    title,
    figures: [
      { label: 'events sent / accepted (`logged`)', value: `${load.outcomes.length} / ${accepted.size}` },
      { label: 'stored in MySQL / lost / stored twice', value: `${stored.size - unacknowledged} / ${lost.length} / ${duplicated}` },
      { label: 'stored without an acknowledgement (a request cut short)', value: String(unacknowledged) },
      { label: 'client errors', value: counts(errors) },
      { label: 'accepted but not stored when the link came back (the backlog)', value: String(backlog) },
      { label: 'link back → the backlog stored', value: seconds(caughtUpAt === null ? null : caughtUpAt - restoredAt) },
    ],
    problems,
  }
}
