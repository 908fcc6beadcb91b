/**
 * `front-a` is cut off (its link goes down; nothing is closed) under polling and with streams open through the
 * balancer: the balancer stops sending to it, only requests in flight at the cut may fail, streams on it reconnect to
 * `front-b`, and a change made meanwhile reaches everyone. Then `front-a` comes back: the balancer sends to it again,
 * and it never answers with what it had cached before the cut.
 */
import { followStream, type FollowedStream } from '../clients.js'
import type { Deployment } from '../deployment.js'
import { cutHost, restoreHost } from '../netns.js'
import { linkPlayer, playing, setActivity, shownAt, waitShown } from '../players.js'
import { median } from '../../harness/stats.js'
import { counts, millis, seconds, tally, type ScenarioOutcome } from '../scenario.js'
import { CLIENT_ADDRESSES } from '../topology.js'
import { pause, startPolling, watchBalancer } from '../watchers.js'

const CUT_MS = 20_000
const STREAMS = 8
const POLL_EVERY_MS = 150

/** Runs the scenario. */
export async function frontCutScenario(dep: Deployment, log: (m: string) => void): Promise<ScenarioOutcome> {
  const title =
    `4 game servers poll callbacks through the balancer every ${POLL_EVERY_MS} ms and ${STREAMS} SSE streams are open through it; ` +
    `front-a's link goes down for ${CUT_MS / 1000} s (a change is made meanwhile), then comes back; front-a is also polled directly after it returns`
  const problems: string[] = []
  const player = await linkPlayer(dep, 300, 0)
  await setActivity(dep, player, [{ type: 0, name: 'Before cut' }])
  for (const f of ['front-a', 'front-b'] as const) {
    if ((await waitShown(dep.frontApi(f), player.code, playing('Before cut'), Date.now(), 15_000)) === null) throw new Error(`${f} never showed the first activity`)
  }

  const lb = watchBalancer(dep)
  const polling = startPolling(dep.api, [player.code], CLIENT_ADDRESSES.slice(4, 8), POLL_EVERY_MS)
  const streams: FollowedStream[] = Array.from({ length: STREAMS }, (_, i) => followStream(`${dep.api}/stream/${player.code}`, CLIENT_ADDRESSES[8 + (i % 4)]!))
  let direct: Array<{ at: number; shown: string }> = []
  try {
    const until = Date.now() + 10_000
    while (streams.some((s) => s.events.length === 0) && Date.now() < until) await pause(50)
    if (streams.some((s) => s.events.length === 0)) problems.push('not every stream opened through the balancer')
    const onA = await dep.metric('front-a', 'presence_link_streams_open', { kind: 'sse' })
    const onB = await dep.metric('front-b', 'presence_link_streams_open', { kind: 'sse' })
    await pause(2000)

    const cutAt = Date.now()
    cutHost('front-a')
    log('front-cut: front-a cut off')
    await pause(3000)
    const changedAt = Date.now()
    await setActivity(dep, player, [{ type: 0, name: 'During cut' }])
    const lbSawChange = await waitShown(dep.api, player.code, playing('During cut'), changedAt, 10_000, 100)
    await pause(cutAt + CUT_MS - Date.now())

    const restoredAt = Date.now()
    restoreHost('front-a')
    log('front-cut: front-a restored')
    // Straight at front-a, as often as the rate limit allows, until the balancer has it back and a while after.
    const directUntil = restoredAt + 15_000
    while (Date.now() < directUntil) {
      direct.push({ at: Date.now(), shown: await shownAt(dep.frontApi('front-a'), player.code) })
      await pause(100)
    }
    const upAt = lb.firstAfter('front-a', 'UP', restoredAt)
    await pause(2000)
    const afterAt = Date.now()
    await setActivity(dep, player, [{ type: 0, name: 'After cut' }])
    const afterOnA = await waitShown(dep.frontApi('front-a'), player.code, playing('After cut'), afterAt, 10_000, 100)
    await pause(1000)
    await polling.stop()

    const downAt = lb.firstAfter('front-a', 'DOWN', cutAt)
    const records = polling.records
    const failed = records.filter((r) => r.status !== 200)
    const failedKinds = tally(failed.map((r) => r.shown[player.code]!))
    const sentAfterDown = downAt === null ? [] : failed.filter((r) => r.sent > downAt)
    // Wrong answers: a 200 that shows anything but the current activity (the one from before the cut, from a near
    // cache nobody told, or No activity, from liveness marks read before the cut). Refusals (503) are honest.
    const wrongLb = records.filter(
      (r) => r.status === 200 && r.sent > changedAt + (lbSawChange ?? 0) && r.sent < afterAt && r.shown[player.code] !== playing('During cut'),
    )
    const wrongDirect = direct.filter((d) => !d.shown.startsWith('HTTP ') && !d.shown.startsWith('failed') && d.shown !== playing('During cut'))
    const directShown = tally(direct.map((d) => d.shown))

    const moved = streams.filter((s) => s.ended.some((t) => t >= cutAt))
    const reconnects = moved.map((s) => (s.opened.find((t) => t > cutAt) ?? Number.NaN) - cutAt)
    const gotChange = streams.filter((s) => s.events.some((e) => e.at >= changedAt && e.data.includes('During cut;')))

    if (downAt === null) problems.push('the balancer never marked front-a down')
    if (sentAfterDown.length > 0) problems.push(`${sentAfterDown.length} requests sent after the balancer marked front-a down failed (${counts(failedKinds)})`)
    if (lbSawChange === null) problems.push('the change made during the cut never showed through the balancer')
    if (wrongLb.length > 0) {
      const shown = counts(tally(wrongLb.map((r) => r.shown[player.code]!)))
      problems.push(`${wrongLb.length} answers through the balancer showed something else than the change once it had shown: ${shown}`)
    }
    if (moved.length !== onA) problems.push(`${moved.length} streams ended after the cut, but front-a held ${onA}`)
    if (reconnects.some((ms) => Number.isNaN(ms))) problems.push('a stream cut off with front-a never reconnected')
    if (gotChange.length !== STREAMS) problems.push(`${gotChange.length} of ${STREAMS} streams received the change made during the cut`)
    if (upAt === null) problems.push('the balancer did not bring front-a back within 15 s of its return')
    if (wrongDirect.length > 0) {
      const shown = counts(tally(wrongDirect.map((d) => d.shown)))
      problems.push(`front-a answered ${wrongDirect.length} times with something else than the current activity after it came back: ${shown} (last ${seconds(wrongDirect.at(-1)!.at - restoredAt)} after)`)
    }
    if (afterOnA === null) problems.push('front-a never showed the change made after its return')

    return {
      name: 'front-cut',
      title,
      figures: [
        { label: 'streams on front-a / front-b before the cut', value: `${onA} / ${onB}` },
        { label: 'cut → balancer marks front-a DOWN', value: seconds(downAt === null ? null : downAt - cutAt) },
        { label: 'polls through the balancer (all)', value: `${records.length}, failed ${failed.length} (${counts(failedKinds)})` },
        { label: 'failed polls sent after front-a was marked down', value: String(sentAfterDown.length) },
        { label: 'streams that were on front-a: cut → reopened on front-b', value: `median ${seconds(median(reconnects))}, max ${seconds(Math.max(...reconnects))} (${moved.length} streams)` },
        { label: 'change during the cut → shown through the balancer', value: millis(lbSawChange) },
        { label: 'streams that received the change made during the cut', value: `${gotChange.length} of ${STREAMS}` },
        { label: 'link back → balancer marks front-a UP', value: seconds(upAt === null ? null : upAt - restoredAt) },
        { label: 'front-a polled directly after its return (every 100 ms, 15 s)', value: counts(directShown) },
        { label: 'change after the return → shown by front-a', value: millis(afterOnA) },
      ],
      problems,
    }
  } finally {
    restoreHost('front-a')
    lb.stop()
    await polling.stop()
    for (const s of streams) s.close()
    direct = []
  }
}
