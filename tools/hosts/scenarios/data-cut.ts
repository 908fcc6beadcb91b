/**
 * data-cut: the host of the Redis primary is cut off under steady load (log events, binds, polls, streams). The
 * Sentinels on the two other data hosts agree on a failover to a replica; the parts follow it. Reports how long until
 * callbacks answer 200 again, what binds and log events were answered meanwhile, that no accepted event is lost or
 * stored twice, and how long until the backlog from before the cut is stored. The old primary returns as a replica.
 */
import type { Deployment } from '../deployment.js'
import { cutHost, restoreHost } from '../netns.js'
import { counts, seconds, type ScenarioOutcome } from '../scenario.js'
import { endChecks, outcomesBetween, pollResults, startSteadyLoad, steadyAgainAt, storedCounts, streamReconnects } from '../steady-load.js'
import type { DataHost } from '../topology.js'
import { pause } from '../watchers.js'

const LOGS_PER_SECOND = 40
const BIND_EVERY_MS = 1000
const BEFORE_MS = 8000
const CUT_MS = 30_000
const AFTER_MS = 15_000

/** Waits (up to `ms`) until the old primary is a replica of the new one with its link up; epoch ms, or null. */
export async function rejoinedAsReplica(dep: Deployment, host: DataHost, ms: number): Promise<number | null> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if ((await dep.redisSet.role(host)) === 'replica (link up)') return Date.now()
    await pause(250)
  }
  return null
}

/** Runs the scenario. */
export async function dataCutScenario(dep: Deployment, log: (m: string) => void): Promise<ScenarioOutcome> {
  const title =
    `${LOGS_PER_SECOND} log events a second, a bind every ${BIND_EVERY_MS / 1000} s, 4 pollers and 4 SSE streams through the balancer; ` +
    `the Redis primary's host is cut ${BEFORE_MS / 1000} s in, for ${CUT_MS / 1000} s; load goes on ${AFTER_MS / 1000} s after its return`
  const problems: string[] = []
  const primary = await dep.redisSet.primary()
  if (primary === null) throw new Error('the Sentinels do not agree on a primary')
  const load = await startSteadyLoad(dep, 'Data cut', 330, BEFORE_MS + CUT_MS + AFTER_MS, LOGS_PER_SECOND, BIND_EVERY_MS)
  let cutAt = 0
  let restoredAt = 0
  let failover: { at: number; to: DataHost } | null = null
  let backlogStoredAt: number | null = null
  let rejoinedAt: number | null = null
  let backlog = 0
  let replicasAtReturn = '-'
  try {
    await pause(BEFORE_MS)
    const acceptedBefore = [...load.logs.accepted]
    cutAt = Date.now()
    cutHost(primary)
    log(`data-cut: ${primary} (the Redis primary) cut off`)
    const storedAtCut = await storedCounts(dep, load.tag).catch(() => new Map<string, number>())
    backlog = acceptedBefore.filter((id) => !storedAtCut.has(id)).length
    while (Date.now() < cutAt + CUT_MS) {
      const now = await dep.redisSet.primary()
      if (failover === null && now !== null && now !== primary) failover = { at: Date.now(), to: now }
      if (backlogStoredAt === null) {
        const stored = await storedCounts(dep, load.tag).catch(() => null)
        if (stored !== null && acceptedBefore.every((id) => stored.has(id))) backlogStoredAt = Date.now()
      }
      await pause(250)
    }
    restoredAt = Date.now()
    if (failover !== null) replicasAtReturn = /connected_slaves:(\d+)/.exec(await dep.redisSet.command(failover.to, ['info', 'replication']))?.[1] ?? '?'
    restoreHost(primary)
    log(`data-cut: ${primary} restored`)
    rejoinedAt = await rejoinedAsReplica(dep, primary, 60_000)
    await pause(Math.max(0, restoredAt + AFTER_MS - Date.now()))
  } finally {
    restoreHost(primary)
    await load.stop()
  }

  const { logs, bindsLost } = await endChecks(dep, load, problems)
  const polls = pollResults(load.readers)
  const callbacksAgainAt = steadyAgainAt(load.readers.polling.records, cutAt, (r) => r.status === 200)
  const logsAgainAt = steadyAgainAt(load.logs.outcomes, cutAt, (o) => o.result === '200 logged')
  const bindsAgainAt = steadyAgainAt(load.binds.outcomes, cutAt, (o) => o.result === '200 bound')
  const meanwhileEnd = Math.max(callbacksAgainAt ?? restoredAt, logsAgainAt ?? restoredAt)
  if (failover === null) problems.push('the Sentinels did not fail over while the primary was cut off')
  if (callbacksAgainAt === null || callbacksAgainAt > restoredAt) problems.push('callbacks did not answer 200 again while the primary was cut off')
  if (logsAgainAt === null || logsAgainAt > restoredAt) problems.push('log events were not answered logged again while the primary was cut off')
  if (bindsAgainAt === null || bindsAgainAt > restoredAt) problems.push('binds were not answered bound again while the primary was cut off')
  if (backlogStoredAt === null) problems.push('the events accepted before the cut were not all stored while it lasted')
  if (rejoinedAt === null) problems.push(`${primary} did not come back as a replica in sync within 60 s of its return`)
  const since = (at: number | null) => seconds(at === null ? null : at - cutAt)
  if (problems.length > 0) for (const part of ['worker', 'front-a'] as const) log(`data-cut: ${part} said:\n${dep.parts.get(part)?.lines.slice(-25).join('\n') ?? ''}`)
  return {
    name: 'data-cut',
    title,
    figures: [
      { label: 'primary cut → Sentinels name a new primary', value: failover === null ? '-' : `${since(failover.at)} (${primary} → ${failover.to})` },
      { label: 'primary cut → callbacks answer 200 again', value: since(callbacksAgainAt) },
      { label: 'primary cut → log events answered `logged` again', value: since(logsAgainAt) },
      { label: 'primary cut → binds answered `bound` again', value: since(bindsAgainAt) },
      { label: 'log answers until then', value: outcomesBetween(load.logs.outcomes, cutAt, meanwhileEnd) },
      { label: 'bind answers until then', value: outcomesBetween(load.binds.outcomes, cutAt, meanwhileEnd) },
      { label: 'events sent / accepted / stored / lost / stored twice', value: `${load.logs.outcomes.length} / ${load.logs.accepted.size} / ${logs.stored.size - logs.unacknowledged} / ${logs.lost.length} / ${logs.duplicated}` },
      { label: 'stored without an acknowledgement (answered 503, stored anyway)', value: String(logs.unacknowledged) },
      { label: 'binds sent / bound / bound but lost', value: `${load.binds.outcomes.length} / ${load.binds.bound.size} / ${bindsLost.length}` },
      { label: 'backlog at the cut (accepted, not yet stored) → stored', value: `${backlog} events, ${since(backlogStoredAt)}` },
      { label: 'replicas of the new primary when the link came back', value: replicasAtReturn },
      { label: `link back → ${primary} a replica in sync`, value: seconds(rejoinedAt === null ? null : rejoinedAt - restoredAt) },
      { label: 'polls', value: counts(polls) },
      { label: 'stream reconnects', value: String(streamReconnects(load.readers)) },
    ],
    problems,
  }
}
