/**
 * A presence change made in the sandbox reaches polling clients and open streams on both fronts: each change is made
 * for a player of one shard or the other (so both gateways write), and its arrival is timed at a callbacks poller
 * and an SSE stream on front-a and on front-b directly.
 */
import { followStream, type FollowedStream } from '../clients.js'
import type { Deployment } from '../deployment.js'
import { linkPlayer, playing, setActivity, waitShown, type Player } from '../players.js'
import { median } from '../../harness/stats.js'
import { millis, type ScenarioOutcome } from '../scenario.js'
import { CLIENT_ADDRESSES } from '../topology.js'

const CHANGES = 10
const FRONTS = ['front-a', 'front-b'] as const

async function streamArrival(stream: FollowedStream, code: string, game: string, since: number, timeoutMs: number): Promise<number | null> {
  const until = since + timeoutMs
  while (Date.now() < until) {
    const hit = stream.events.find((e) => e.at >= since && e.data.startsWith(`{${code};`) && e.data.includes(`${game};`))
    if (hit !== undefined) return hit.at - since
    await new Promise((r) => setTimeout(r, 10))
  }
  return null
}

/** Runs the scenario. */
export async function presenceScenario(dep: Deployment, log: (m: string) => void): Promise<ScenarioOutcome> {
  const title = `${CHANGES} presence changes in the sandbox (alternating a shard-0 and a shard-1 player); each timed until a callbacks poll (every 10 ms) and an open SSE stream show it, on front-a and on front-b directly`
  const problems: string[] = []
  const players: Player[] = [await linkPlayer(dep, 100, 0), await linkPlayer(dep, 101, 1)]
  for (const p of players) await setActivity(dep, p, [{ type: 0, name: 'Warmup' }])
  for (const p of players) for (const f of FRONTS) {
    if ((await waitShown(dep.frontApi(f), p.code, playing('Warmup'), Date.now(), 30_000)) === null) problems.push(`${f} never showed ${p.code}'s first activity`)
  }
  const codes = players.map((p) => p.code).join('&')
  const streams = Object.fromEntries(FRONTS.map((f, i) => [f, followStream(`${dep.frontApi(f)}/stream/${codes}`, CLIENT_ADDRESSES[2 + i]!)])) as Record<(typeof FRONTS)[number], FollowedStream>
  const polls: Record<string, number[]> = { 'front-a': [], 'front-b': [] }
  const pushed: Record<string, number[]> = { 'front-a': [], 'front-b': [] }
  try {
    for (let i = 0; i < CHANGES; i++) {
      const player = players[i % 2]!
      const game = `Game ${i}`
      const since = Date.now()
      await setActivity(dep, player, [{ type: 0, name: game }])
      const [pa, pb, sa, sb] = await Promise.all([
        waitShown(dep.frontApi('front-a'), player.code, playing(game), since, 10_000, 10),
        waitShown(dep.frontApi('front-b'), player.code, playing(game), since, 10_000, 10),
        streamArrival(streams['front-a'], player.code, game, since, 10_000),
        streamArrival(streams['front-b'], player.code, game, since, 10_000),
      ])
      for (const [front, poll, push] of [['front-a', pa, sa], ['front-b', pb, sb]] as const) {
        if (poll === null) problems.push(`change ${i} (shard ${player.shard}) never reached polls on ${front}`)
        else polls[front]!.push(poll)
        if (push === null) problems.push(`change ${i} (shard ${player.shard}) never reached the stream on ${front}`)
        else pushed[front]!.push(push)
      }
    }
  } finally {
    for (const s of Object.values(streams)) s.close()
  }
  log(`presence: polls a ${polls['front-a']!.join(',')} b ${polls['front-b']!.join(',')}`)
  const fmt = (xs: number[]) => `median ${millis(median(xs))}, max ${millis(Math.max(...xs))} (${xs.length} of ${CHANGES})`
  return {
    name: 'presence',
    title,
    figures: [
      { label: 'sandbox change → callbacks poll on front-a', value: fmt(polls['front-a']!) },
      { label: 'sandbox change → callbacks poll on front-b', value: fmt(polls['front-b']!) },
      { label: 'sandbox change → SSE stream on front-a', value: fmt(pushed['front-a']!) },
      { label: 'sandbox change → SSE stream on front-b', value: fmt(pushed['front-b']!) },
    ],
    problems,
  }
}
