/**
 * Waits until Discord answers over the network before the gateway logs in: `GET {DISCORD_API}/v10/gateway` (no
 * token needed). Any HTTP answer counts as reachable (a refusal is login's business); a network failure is logged
 * once per cause (gateway/model/discord-unreachable.ts) and tried again after a pause that grows to 30 s, so a
 * Discord that DNS cannot find is a patient wait, not a crash loop.
 */
import type { Logger } from '../lib/logger.js'
import { abortableSleep } from '../lib/abortable-sleep.js'
import { restartDelayMs } from '../lib/model/restart-backoff.js'
import { networkCause, unreachableLine } from './model/discord-unreachable.js'

/** What the wait needs. */
export interface DiscordReachabilityDeps {
  /** DISCORD_API (`https://discord.com/api`). */
  api: string
  log: Logger
  /** Aborts the wait (shutdown). */
  signal: AbortSignal
  /** Told the reason while waiting, then '' once Discord answers (serve's "waiting" message). */
  onWaiting?: (reason: string) => void
  /** One probe's time limit. */
  timeoutMs?: number
}

/** Resolves once Discord answers (or `signal` aborts); throws what is not a network failure. */
export async function waitForDiscord(deps: DiscordReachabilityDeps): Promise<void> {
  const { api, log, signal } = deps
  let reported = ''
  for (let attempt = 0; !signal.aborted; attempt++) {
    const cause = await fetch(`${api}/v10/gateway`, { signal: AbortSignal.any([signal, AbortSignal.timeout(deps.timeoutMs ?? 10_000)]) }).then(
      async (res) => {
        await res.body?.cancel()
        return null
      },
      (err: unknown) => {
        if (signal.aborted) return null
        const found = networkCause(err)
        if (found !== null) return found
        // A probe that timed out is a network failure too; anything else (a bad URL) is a bug to report.
        if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `no answer within ${(deps.timeoutMs ?? 10_000) / 1000} s`
        throw err
      },
    )
    if (cause === null) {
      if (reported !== '') {
        log.info({ api }, 'Discord is reachable again; logging in')
        deps.onWaiting?.('')
      }
      return
    }
    const pause = restartDelayMs(attempt)
    if (cause !== reported) {
      log.error({ variable: 'DISCORD_API', api, cause }, unreachableLine(api, cause, pause))
      deps.onWaiting?.(`discord: unreachable at DISCORD_API (${cause})`)
      reported = cause
    }
    await abortableSleep(pause, signal)
  }
}
