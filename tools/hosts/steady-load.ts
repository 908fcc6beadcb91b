/**
 * The steady load the data-host scenarios (and worker-cut) run while a host is cut: log events at a fixed rate, binds
 * of codes issued beforehand, callbacks polls and SSE streams, all through the balancer from the simulated game
 * servers' addresses. Every request's outcome is kept with its time, so a scenario can say what clients saw during a
 * cut, and what the service accepted is checked against what MySQL holds at the end (by the ids the load sent).
 */
import { sql } from 'kysely'
import { call, followStream, type FollowedStream } from './clients.js'
import { sandboxCall, type Deployment } from './deployment.js'
import { linkPlayer, playing, setActivity, waitShownOnBothFronts, type Player } from './players.js'
import { counts, tally } from './scenario.js'
import { CLIENT_ADDRESSES } from './topology.js'
import { pause, startPolling, type PollLoop } from './watchers.js'

/** One request of the load: when it was sent and answered, and how (`200`, `503`, `failed (ECONNRESET)`...). */
export interface Outcome {
  id: string
  sent: number
  at: number
  status: number
  /** `logged`, `bound` or the error code of the body, or the client's failure. */
  result: string
}

/** Log events sent at a fixed rate; `accepted` holds the ids answered `logged`. */
export interface LogLoad {
  tag: string
  accepted: Set<string>
  outcomes: Outcome[]
  stop(): Promise<void>
}

function resultOf(status: number, text: string, error: string | undefined): string {
  if (status === 0) return `failed (${error ?? '?'})`
  const word = /"(logged|bound|already_bound)"/.exec(text)?.[1] ?? /"code":"([a-z_]+)"/.exec(text)?.[1]
  return `${status}${word === undefined ? '' : ` ${word}`}`
}

/** Sends `perSecond` log events (category server, event type `tag`, description `tag#n`) until stopped. */
export function startLogLoad(dep: Deployment, tag: string, perSecond: number): LogLoad {
  const load: LogLoad = { tag, accepted: new Set(), outcomes: [], stop: async () => undefined }
  let stopped = false
  let sent = 0
  const inFlight = new Set<Promise<void>>()
  const started = Date.now()
  const tick = async () => {
    while (!stopped) {
      const due = Math.floor(((Date.now() - started) / 1000) * perSecond)
      while (sent < due) {
        const n = sent++
        const id = `${tag}#${n}`
        const at = Date.now()
        const p = call(`${dep.api}/log/server`, {
          from: CLIENT_ADDRESSES[n % CLIENT_ADDRESSES.length]!,
          body: { event_type: tag, description: id },
          headers: { authorization: dep.bearer },
        }).then((r) => {
          const result = resultOf(r.status, r.text, r.error)
          load.outcomes.push({ id, sent: at, at: Date.now(), status: r.status, result })
          if (r.status === 200 && result === '200 logged') load.accepted.add(id)
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

/** How many rows MySQL holds per description for the load's tag (through the balancer, like the parts). */
export async function storedCounts(dep: Deployment, tag: string): Promise<Map<string, number>> {
  const rows = await dep.db
    .selectFrom('log_entries')
    .select(['description', sql<number>`COUNT(*)`.as('n')])
    .where('event_type', '=', tag)
    .groupBy('description')
    .execute()
  return new Map(rows.map((r) => [r.description, Number(r.n)]))
}

/** What the log load left in MySQL once everything accepted is stored (or `waitMs` passed). */
export interface LogCheck {
  stored: Map<string, number>
  lost: string[]
  duplicated: number
  /** Stored although the client got no `logged` (a request cut short after the front took it). */
  unacknowledged: number
}

/** Waits until every accepted event is stored (up to `waitMs`, retrying failed reads) and compares. */
export async function checkLogs(dep: Deployment, load: LogLoad, waitMs = 120_000): Promise<LogCheck> {
  const deadline = Date.now() + waitMs
  let stored = new Map<string, number>()
  for (;;) {
    stored = await storedCounts(dep, load.tag).catch(() => stored)
    if ([...load.accepted].every((id) => stored.has(id)) || Date.now() > deadline) break
    await pause(500)
  }
  return {
    stored,
    lost: [...load.accepted].filter((id) => !stored.has(id)),
    duplicated: [...stored.values()].filter((n) => n > 1).length,
    unacknowledged: [...stored.keys()].filter((id) => !load.accepted.has(id)).length,
  }
}

/** A code issued by `/code` in the sandbox, ready to be bound by a game account. */
export interface IssuedCode {
  code: string
  robloxId: number
  robloxName: string
}

/** Issues `n` codes to new sandbox members (numbered from `first`), each with a Roblox user to bind it to. */
export async function issueCodes(dep: Deployment, first: number, n: number): Promise<IssuedCode[]> {
  const out: IssuedCode[] = []
  for (let i = first; i < first + n; i++) {
    const userId = String(400_000_000_000_000_000n + BigInt(i))
    const guildId = dep.world.guildOfShard[0]
    await sandboxCall(dep, 'POST', 'members', { id: userId, username: `steady${i}`, guild_id: guildId })
    await sandboxCall(dep, 'POST', 'roblox-users', { id: 700_000 + i, name: `Steady${i}` })
    const reply = await sandboxCall<{ content: string }>(dep, 'POST', 'commands', { user_id: userId, name: 'code', guild_id: guildId })
    const code = /\*\*([A-Z0-9]{4})\*\*/.exec(reply.content)?.[1]
    if (code === undefined) throw new Error(`no code in the /code reply: ${reply.content}`)
    out.push({ code, robloxId: 700_000 + i, robloxName: `Steady${i}` })
  }
  return out
}

/** Binds sent one every `everyMs`, each of the next issued code, from every client address in turn. */
export interface BindLoad {
  outcomes: Outcome[]
  /** Codes answered `bound`. */
  bound: Map<string, IssuedCode>
  stop(): Promise<void>
}

/** Binds `codes` one at a time, one every `everyMs` (at most as many binds as codes). */
export function startBindLoad(dep: Deployment, codes: readonly IssuedCode[], everyMs: number): BindLoad {
  const load: BindLoad = { outcomes: [], bound: new Map(), stop: async () => undefined }
  let stopped = false
  const inFlight = new Set<Promise<void>>()
  const loop = (async () => {
    for (const [n, issued] of codes.entries()) {
      if (stopped) break
      const at = Date.now()
      const p = call(`${dep.api}/bind`, {
        from: CLIENT_ADDRESSES[n % CLIENT_ADDRESSES.length]!,
        body: { code: issued.code, platform_username: issued.robloxName, platform_user_id: issued.robloxId },
        headers: { authorization: dep.bearer },
      }).then((r) => {
        const result = resultOf(r.status, r.text, r.error)
        load.outcomes.push({ id: issued.code, sent: at, at: Date.now(), status: r.status, result })
        if (result === '200 bound') load.bound.set(issued.code, issued)
      })
      inFlight.add(p)
      void p.finally(() => inFlight.delete(p))
      await pause(Math.max(0, at + everyMs - Date.now()))
    }
  })()
  load.stop = async () => {
    stopped = true
    await loop
    await Promise.all([...inFlight])
  }
  return load
}

/** Codes answered `bound` whose row in MySQL does not hold that game account (bound but lost). */
export async function lostBinds(dep: Deployment, load: BindLoad): Promise<string[]> {
  const codes = [...load.bound.keys()]
  if (codes.length === 0) return []
  const rows = await dep.db.selectFrom('codes').select(['code', 'platform_user_id']).where('code', 'in', codes).execute()
  const held = new Map(rows.map((r) => [r.code, String(r.platform_user_id)]))
  return codes.filter((c) => held.get(c) !== String(load.bound.get(c)!.robloxId))
}

/** Polls and streams of one linked code, kept open through the balancer while a scenario runs. */
export interface Readers {
  polling: PollLoop
  streams: FollowedStream[]
  stop(): Promise<void>
}

/** Starts `pollers` callbacks pollers (every `everyMs`) and `streams` SSE streams of `code`. */
export function startReaders(dep: Deployment, code: string, pollers: number, everyMs: number, streams: number): Readers {
  const polling = startPolling(dep.api, [code], CLIENT_ADDRESSES.slice(4, 4 + pollers), everyMs)
  const followed = Array.from({ length: streams }, (_, i) => followStream(`${dep.api}/stream/${code}`, CLIENT_ADDRESSES[8 + (i % 4)]!))
  return {
    polling,
    streams: followed,
    async stop() {
      for (const s of followed) s.close()
      await polling.stop()
    },
  }
}

/** The outcomes in [from, to) by result, rendered `200 logged 412, 503 bind_timeout 3` (or `none`). */
export function outcomesBetween(outcomes: readonly Outcome[], from: number, to: number): string {
  return counts(tally(outcomes.filter((o) => o.sent >= from && o.sent < to).map((o) => o.result)))
}

/** Epoch ms of the first outcome sent at or after `since` from which on every outcome is `ok` (null: never). */
export function steadyAgainAt<T extends { sent: number; at: number }>(outcomes: readonly T[], since: number, ok: (o: T) => boolean): number | null {
  const after = outcomes.filter((o) => o.sent >= since).sort((a, b) => a.sent - b.sent)
  let at: number | null = null
  for (const o of after) {
    if (!ok(o)) at = null
    else if (at === null) at = o.at
  }
  return at
}

/** Everything a data scenario runs at once: log events, binds, polls and streams. */
export interface SteadyLoad {
  tag: string
  player: Player
  logs: LogLoad
  binds: BindLoad
  readers: Readers
  stop(): Promise<void>
}

/**
 * Links a player (number `n`) whose activity the readers follow, issues enough codes to bind one every `bindEveryMs`
 * for `durationMs`, then starts the log load (`logsPerSecond`), the binds, 4 pollers (every 250 ms) and 4 SSE streams.
 */
export async function startSteadyLoad(dep: Deployment, name: string, n: number, durationMs: number, logsPerSecond: number, bindEveryMs: number): Promise<SteadyLoad> {
  const player = await linkPlayer(dep, n, 0)
  await setActivity(dep, player, [{ type: 0, name }])
  if ((await waitShownOnBothFronts(dep, player.code, playing(name), Date.now(), 15_000)) === null) throw new Error(`the fronts never showed ${name}`)
  const codes = await issueCodes(dep, n * 100, Math.ceil(durationMs / bindEveryMs) + 2)
  const tag = `hosts_${name.toLowerCase().replace(/[^a-z]+/g, '_')}_${Date.now().toString(36)}`
  const logs = startLogLoad(dep, tag, logsPerSecond)
  const binds = startBindLoad(dep, codes, bindEveryMs)
  const readers = startReaders(dep, player.code, 4, 250, 4)
  return {
    tag,
    player,
    logs,
    binds,
    readers,
    async stop() {
      await Promise.all([logs.stop(), binds.stop(), readers.stop()])
    },
  }
}

/** The checks every data scenario makes at the end: what was accepted is stored once, what was bound is bound. */
export async function endChecks(dep: Deployment, load: SteadyLoad, problems: string[]): Promise<{ logs: LogCheck; bindsLost: string[] }> {
  const logs = await checkLogs(dep, load.logs)
  const bindsLost = await lostBinds(dep, load.binds)
  if (logs.lost.length > 0) problems.push(`${logs.lost.length} accepted events were never stored (first ${logs.lost.slice(0, 3).join(', ')})`)
  if (logs.duplicated > 0) problems.push(`${logs.duplicated} events were stored more than once`)
  if (bindsLost.length > 0) problems.push(`${bindsLost.length} binds answered bound are not in MySQL: ${bindsLost.join(', ')}`)
  return { logs, bindsLost }
}

/** Polls by result (`200`, `HTTP 503`, `failed`). */
export function pollResults(readers: Readers): Map<string, number> {
  return tally(readers.polling.records.map((r) => (r.status === 200 ? '200' : r.status === 0 ? 'failed' : `HTTP ${r.status}`)))
}

/** SSE reconnects over every stream. */
export function streamReconnects(readers: Readers): number {
  return readers.streams.reduce((sum, s) => sum + Math.max(0, s.opened.length - 1), 0)
}
