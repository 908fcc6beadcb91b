/**
 * `gateway-b` (shard 1) is cut off: its players' presences turn to "No activity" within the liveness window while
 * shard 0's stay as they are; a change made in Discord meanwhile shows once gateway-b is back and has resynced, and
 * the activity from before the cut never shows again.
 */
import type { Deployment } from '../deployment.js'
import { cutHost, restoreHost } from '../netns.js'
import { linkPlayer, playing, setActivity, waitShown, waitShownOnBothFronts } from '../players.js'
import { counts, seconds, tally, type ScenarioOutcome } from '../scenario.js'
import { CLIENT_ADDRESSES } from '../topology.js'
import { pause, startPolling } from '../watchers.js'

/** The gateway's mark lasts 15 s (STALE_AFTER_MS) and fronts read the marks every second. */
const LIVENESS_WINDOW_MS = 15_000
const MARKS_READ_MS = 1000
const CUT_MS = 25_000

/** Runs the scenario. */
export async function gatewayCutScenario(dep: Deployment, log: (m: string) => void): Promise<ScenarioOutcome> {
  const title =
    `a shard-0 and a shard-1 player are polled through the balancer every 200 ms; gateway-b's link goes down for ${CUT_MS / 1000} s, ` +
    'the shard-1 player changes activity meanwhile, then the link comes back'
  const problems: string[] = []
  const p0 = await linkPlayer(dep, 400, 0)
  const p1 = await linkPlayer(dep, 401, 1)
  await setActivity(dep, p0, [{ type: 0, name: 'Shard zero' }])
  await setActivity(dep, p1, [{ type: 0, name: 'Before cut' }])
  for (const [p, game] of [[p0, 'Shard zero'], [p1, 'Before cut']] as const) {
    if ((await waitShownOnBothFronts(dep, p.code, playing(game), Date.now(), 15_000)) === null) throw new Error(`${p.code} never showed ${game}`)
  }
  const polling = startPolling(dep.api, [p0.code, p1.code], CLIENT_ADDRESSES.slice(4, 8), 200)
  try {
    await pause(2000)
    const cutAt = Date.now()
    cutHost('gateway-b')
    log('gateway-cut: gateway-b cut off')
    await pause(3000)
    await setActivity(dep, p1, [{ type: 0, name: 'During cut' }])
    await pause(cutAt + CUT_MS - Date.now())
    const restoredAt = Date.now()
    restoreHost('gateway-b')
    log('gateway-cut: gateway-b restored')
    const back = await waitShown(dep.api, p1.code, playing('During cut'), restoredAt, 120_000, 200)
    await pause(3000)
    await polling.stop()

    const records = polling.records.filter((r) => r.sent >= cutAt)
    const lapsedAt = records.find((r) => r.shown[p1.code] === 'No activity')?.at ?? null
    const shard0 = tally(records.map((r) => r.shown[p0.code]!))
    const shard1 = tally(records.map((r) => r.shown[p1.code]!))
    const resurrected = lapsedAt === null ? [] : records.filter((r) => r.sent > lapsedAt && r.shown[p1.code] === playing('Before cut'))
    const wrong0 = records.filter((r) => r.shown[p0.code] !== playing('Shard zero'))

    if (lapsedAt === null) problems.push('the shard-1 player never turned to No activity while gateway-b was cut off')
    else if (lapsedAt - cutAt > LIVENESS_WINDOW_MS + MARKS_READ_MS + 500) {
      problems.push(`the shard-1 player turned to No activity ${seconds(lapsedAt - cutAt)} after the cut, past the ${LIVENESS_WINDOW_MS / 1000} s liveness window`)
    }
    if (wrong0.length > 0) problems.push(`the shard-0 player was shown otherwise ${wrong0.length} times: ${counts(shard0)}`)
    if (resurrected.length > 0) problems.push(`after the lapse, the shard-1 player's activity from before the cut was shown ${resurrected.length} times`)
    if (back === null) problems.push('the change made during the cut never showed after gateway-b came back')

    return {
      name: 'gateway-cut',
      title,
      figures: [
        { label: 'cut → shard-1 player shown as No activity', value: `${seconds(lapsedAt === null ? null : lapsedAt - cutAt)} (window ${LIVENESS_WINDOW_MS / 1000} s from the last mark, marks renewed every 5 s)` },
        { label: 'link back → the change made during the cut shown', value: seconds(back) },
        { label: 'shard-0 player, polls after the cut', value: counts(shard0) },
        { label: 'shard-1 player, polls after the cut', value: counts(shard1) },
      ],
      problems,
    }
  } finally {
    restoreHost('gateway-b')
    await polling.stop()
  }
}
