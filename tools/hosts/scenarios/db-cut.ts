/**
 * db-cut: the host of the Galera node that takes the writes (the balancer's writer) is cut off under steady load (log
 * events, binds, polls, streams), then comes back. The balancer moves to the next Synced node; binds answered `bound`
 * and log events answered `logged` are all in MySQL exactly once at the end, on every node, and only one node takes
 * connections at a time (no failback when the old writer returns).
 */
import type { Deployment } from '../deployment.js'
import { cutHost, restoreHost } from '../netns.js'
import { linkPlayer, playing, setActivity, waitShownOnBothFronts } from '../players.js'
import { counts, seconds, tally, type ScenarioOutcome } from '../scenario.js'
import {
  checkLogs,
  issueCodes,
  lostBinds,
  outcomesBetween,
  startBindLoad,
  startLogLoad,
  startReaders,
  steadyAgainAt,
  storedCounts,
} from '../steady-load.js'
import { DATA_HOSTS, type DataHost } from '../topology.js'
import { pause } from '../watchers.js'

const LOGS_PER_SECOND = 40
const BIND_EVERY_MS = 1000
const BEFORE_MS = 8000
const CUT_MS = 25_000
const AFTER_MS = 10_000

/** The node the balancer sends connections to now: the one holding sessions (the pools keep theirs open). */
async function writerOf(dep: Deployment): Promise<DataHost | null> {
  const states = await dep.dbStates().catch(() => null)
  if (states === null) return null
  const busy = DATA_HOSTS.filter((h) => states[h]?.status === 'UP' && (states[h]?.sessions ?? 0) > 0)
  return busy.length === 1 ? busy[0]! : null
}

/** Watches the balancer until stopped: when the cut node went DOWN, and which node took the connections after. */
function watchWriter(dep: Deployment, cut: DataHost): { downAt: () => number | null; next: () => DataHost | null; stop: () => Promise<void> } {
  let downAt: number | null = null
  let next: DataHost | null = null
  let stopped = false
  const loop = (async () => {
    while (!stopped) {
      const states = await dep.dbStates().catch(() => null)
      if (states !== null && downAt === null && states[cut]?.status.startsWith('DOWN') === true) downAt = Date.now()
      const writer = await writerOf(dep)
      if (downAt !== null && next === null && writer !== null && writer !== cut) next = writer
      await pause(100)
    }
  })()
  return { downAt: () => downAt, next: () => next, stop: async () => { stopped = true; await loop } }
}

/** Rows of the tag on one node, asked directly (total and distinct descriptions), or null when it does not answer. */
function rowsOnNode(dep: Deployment, host: DataHost, tag: string): { rows: number; distinct: number } | null {
  try {
    const line = dep.galera.query(host, `SELECT COUNT(*), COUNT(DISTINCT description) FROM presence_link.log_entries WHERE event_type = '${tag}'`)
    const [rows, distinct] = line.split('\t').map(Number)
    return { rows: rows!, distinct: distinct! }
  } catch {
    return null
  }
}

/** Runs the scenario. */
export async function dbCutScenario(dep: Deployment, log: (m: string) => void): Promise<ScenarioOutcome> {
  const title =
    `${LOGS_PER_SECOND} log events a second, a bind every ${BIND_EVERY_MS / 1000} s, 4 pollers and 4 SSE streams through the balancer; ` +
    `the writer node's host is cut ${BEFORE_MS / 1000} s in, for ${CUT_MS / 1000} s; load goes on ${AFTER_MS / 1000} s after its return`
  const problems: string[] = []
  const writer = await writerOf(dep)
  if (writer === null) throw new Error(`no single Galera node holds the balancer's connections: ${JSON.stringify(await dep.dbStates())}`)
  const player = await linkPlayer(dep, 320, 0)
  await setActivity(dep, player, [{ type: 0, name: 'Database cut' }])
  if ((await waitShownOnBothFronts(dep, player.code, playing('Database cut'), Date.now(), 15_000)) === null) throw new Error('the fronts never showed the activity')
  const codes = await issueCodes(dep, 0, Math.ceil((BEFORE_MS + CUT_MS + AFTER_MS) / BIND_EVERY_MS) + 2)
  const tag = `hosts_db_${Date.now().toString(36)}`

  const logs = startLogLoad(dep, tag, LOGS_PER_SECOND)
  const binds = startBindLoad(dep, codes, BIND_EVERY_MS)
  const readers = startReaders(dep, player.code, 4, 250, 4)
  let cutAt = 0
  let restoredAt = 0
  let storingAgainAt: number | null = null
  let rejoinedAt: number | null = null
  const watch = watchWriter(dep, writer)
  try {
    await pause(BEFORE_MS)
    const storedBefore = (await storedCounts(dep, tag)).size
    cutAt = Date.now()
    cutHost(writer)
    log(`db-cut: ${writer} cut off`)
    while (Date.now() < cutAt + CUT_MS) {
      const stored = await storedCounts(dep, tag).catch(() => null)
      if (storingAgainAt === null && stored !== null && stored.size > storedBefore + LOGS_PER_SECOND) storingAgainAt = Date.now()
      await pause(250)
    }
    restoredAt = Date.now()
    restoreHost(writer)
    log(`db-cut: ${writer} restored`)
    while (Date.now() < restoredAt + 90_000) {
      const s = dep.galera.state(writer)
      if (s.clusterStatus === 'Primary' && s.localState === 'Synced' && s.clusterSize === DATA_HOSTS.length) {
        rejoinedAt = Date.now()
        break
      }
      await pause(250)
    }
    await pause(Math.max(0, restoredAt + AFTER_MS - Date.now()))
  } finally {
    restoreHost(writer)
    await watch.stop()
    await Promise.all([logs.stop(), binds.stop(), readers.stop()])
  }

  const checked = await checkLogs(dep, logs)
  const bindsLost = await lostBinds(dep, binds)
  const nodes = DATA_HOSTS.map((h) => ({ host: h, seen: rowsOnNode(dep, h, tag) }))
  const writersAtEnd = Object.entries(await dep.dbStates()).filter(([, s]) => s.sessions > 0).map(([h]) => h)
  const pollResults = tally(readers.polling.records.map((r) => (r.status === 200 ? '200' : r.status === 0 ? 'failed' : `HTTP ${r.status}`)))
  const reconnects = readers.streams.reduce((n, s) => n + Math.max(0, s.opened.length - 1), 0)
  const bindAgainAt = steadyAgainAt(binds.outcomes, cutAt, (o) => o.result === '200 bound')
  const nonLogged = logs.outcomes.filter((o) => o.result !== '200 logged')

  if (checked.lost.length > 0) problems.push(`${checked.lost.length} accepted events were never stored (first ${checked.lost.slice(0, 3).join(', ')})`)
  if (checked.duplicated > 0) problems.push(`${checked.duplicated} events were stored more than once`)
  if (bindsLost.length > 0) problems.push(`${bindsLost.length} binds answered bound are not in MySQL: ${bindsLost.join(', ')}`)
  if (nonLogged.length > 0) problems.push(`log events not answered logged: ${counts(tally(nonLogged.map((o) => o.result)))}`)
  if (bindAgainAt === null || bindAgainAt > restoredAt) problems.push('no bind was answered bound while the old writer was cut off')
  if (storingAgainAt === null) problems.push('log events were not stored again while the old writer was cut off')
  if (rejoinedAt === null) problems.push(`${writer} was not Synced again within 90 s of its return`)
  for (const n of nodes) {
    if (n.seen === null) problems.push(`${n.host} did not answer at the end`)
    else if (n.seen.rows !== checked.stored.size || n.seen.distinct !== checked.stored.size) problems.push(`${n.host} holds ${n.seen.rows} rows (${n.seen.distinct} distinct) of ${checked.stored.size}`)
  }
  if (writersAtEnd.length !== 1) problems.push(`connections on ${writersAtEnd.length} nodes at the end (${writersAtEnd.join(', ')}); one writer expected`)
  if (pollResults.size !== 1 || !pollResults.has('200')) problems.push(`polls not answered 200: ${counts(pollResults)}`)

  return {
    name: 'db-cut',
    title,
    figures: [
      { label: 'writer cut → the balancer marks it DOWN', value: seconds(watch.downAt() === null ? null : watch.downAt()! - cutAt) },
      { label: 'writer after the cut / at the end (no failback)', value: `${watch.next() ?? '-'} / ${writersAtEnd.join(', ') || '-'}` },
      { label: 'writer cut → binds answered `bound` again', value: seconds(bindAgainAt === null ? null : bindAgainAt - cutAt) },
      { label: 'writer cut → log events stored again', value: seconds(storingAgainAt === null ? null : storingAgainAt - cutAt) },
      { label: 'binds sent while cut off', value: outcomesBetween(binds.outcomes, cutAt, restoredAt) },
      { label: 'binds sent / bound / bound but lost', value: `${binds.outcomes.length} / ${binds.bound.size} / ${bindsLost.length}` },
      { label: 'bind answers, whole run', value: outcomesBetween(binds.outcomes, 0, Number.MAX_SAFE_INTEGER) },
      { label: 'log answers while cut off', value: outcomesBetween(logs.outcomes, cutAt, restoredAt) },
      { label: 'events sent / accepted / stored / lost / stored twice', value: `${logs.outcomes.length} / ${logs.accepted.size} / ${checked.stored.size - checked.unacknowledged} / ${checked.lost.length} / ${checked.duplicated}` },
      { label: 'rows on data-a / data-b / data-c at the end', value: nodes.map((n) => (n.seen === null ? '-' : String(n.seen.rows))).join(' / ') },
      { label: 'link back → old writer Synced again (IST)', value: seconds(rejoinedAt === null ? null : rejoinedAt - restoredAt) },
      { label: 'polls', value: counts(pollResults) },
      { label: 'stream reconnects', value: String(reconnects) },
    ],
    problems,
  }
}
