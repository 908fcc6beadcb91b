/**
 * A clock offset on one gateway host does not change what fronts show: gateway-a runs with its clock 8 s ahead, then
 * 8 s behind (libfaketime), against a run without offset. In each, its player is polled for 20 s (the activity must
 * show every time), then gateway-a is cut off and the time until its player turns to "No activity" is measured: it
 * must fall in the liveness window whatever the offset (between 10 s and 15 s after the last 5-second renewal of a
 * 15-second mark, plus the fronts' one-second read of the marks).
 */
import { existsSync } from 'node:fs'
import type { Deployment } from '../deployment.js'
import { cutHost, restoreHost } from '../netns.js'
import { linkPlayer, playing, setActivity, waitShown, waitShownOnBothFronts } from '../players.js'
import { counts, seconds, tally, type ScenarioOutcome } from '../scenario.js'
import { CLIENT_ADDRESSES } from '../topology.js'
import { pause, startPolling } from '../watchers.js'

const FAKETIME_LIBRARY = '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1'
const OFFSETS = ['0', '+8', '-8'] as const
const STEADY_MS = 20_000
/** Earliest and latest lapse after a cut: 15 s mark renewed every 5 s, marks read every 1 s, polls every 200 ms. */
const LAPSE_MIN_MS = 10_000 - 500
const LAPSE_MAX_MS = 15_000 + 1000 + 500

/** Runs the scenario. */
export async function clockScenario(dep: Deployment, log: (m: string) => void): Promise<ScenarioOutcome> {
  const title =
    'gateway-a (shard 0) runs with its clock as is, 8 s ahead and 8 s behind (libfaketime); each time its player is polled through the balancer for 20 s, ' +
    'then gateway-a is cut off and the time until its player shows No activity is measured'
  if (!existsSync(FAKETIME_LIBRARY)) throw new Error(`libfaketime is not installed (${FAKETIME_LIBRARY}; Debian package faketime)`)
  const problems: string[] = []
  const figures: ScenarioOutcome['figures'] = []
  const player = await linkPlayer(dep, 500, 0)
  try {
    for (const offset of OFFSETS) {
      const env: Record<string, string> = offset === '0' ? {} : { LD_PRELOAD: FAKETIME_LIBRARY, FAKETIME: `${offset}s`, FAKETIME_DONT_FAKE_MONOTONIC: '1' }
      await dep.start('gateway-a', env)
      const game = `Clock ${offset}`
      await setActivity(dep, player, [{ type: 0, name: game }])
      if ((await waitShownOnBothFronts(dep, player.code, playing(game), Date.now(), 20_000)) === null) throw new Error(`offset ${offset}: the activity never showed`)
      const polling = startPolling(dep.api, [player.code], CLIENT_ADDRESSES.slice(4, 8), 200)
      await pause(STEADY_MS)
      const cutAt = Date.now()
      cutHost('gateway-a')
      const lapse = await waitShown(dep.api, player.code, 'No activity', cutAt, 40_000, 100)
      await polling.stop()
      restoreHost('gateway-a')
      const steady = polling.records.filter((r) => r.sent < cutAt)
      const shown = tally(steady.map((r) => r.shown[player.code]!))
      const wrong = steady.filter((r) => r.shown[player.code] !== playing(game)).length
      log(`clock ${offset}: steady ${counts(shown)}, lapse ${seconds(lapse)}`)
      figures.push({ label: `clock ${offset === '0' ? 'as is' : `${offset} s`}: polls during ${STEADY_MS / 1000} s`, value: counts(shown) })
      figures.push({ label: `clock ${offset === '0' ? 'as is' : `${offset} s`}: cut → No activity`, value: seconds(lapse) })
      if (wrong > 0) {
        const when = steady.filter((r) => r.shown[player.code] !== playing(game)).map((r) => `${seconds(r.sent - (steady[0]?.sent ?? 0))}`)
        problems.push(`with the clock ${offset} s, ${wrong} of ${steady.length} polls did not show the activity: ${counts(shown)} (at ${when.join(', ')} into the polling)`)
        log(`clock ${offset}: gateway-a said:\n${dep.parts.get('gateway-a')?.lines.slice(-15).join('\n') ?? ''}`)
      }
      if (lapse === null) problems.push(`with the clock ${offset} s, the player never turned to No activity after the cut`)
      else if (lapse < LAPSE_MIN_MS || lapse > LAPSE_MAX_MS) {
        problems.push(`with the clock ${offset} s, the player turned to No activity ${seconds(lapse)} after the cut, outside ${seconds(LAPSE_MIN_MS)}-${seconds(LAPSE_MAX_MS)}`)
      }
    }
  } finally {
    restoreHost('gateway-a')
    await dep.start('gateway-a')
  }
  return { name: 'clock', title, figures, problems }
}
