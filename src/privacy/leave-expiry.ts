/**
 * Automatic expiry of the data of chat users who left: when a member leaves a guild and Discord says they are in no
 * other guild of the bot, the time is recorded on their codes (`codes.left_at`; their presence is already cleared by
 * the presence refresh the same event starts); a member who joins a guild again clears it. Every `everyMs` (and at
 * start) the users recorded as gone for FORGET_AFTER_LEAVE_DAYS are asked about once more (op 8: a join may have been
 * missed while the gateway was down) and, still gone, erased as `/forget` erases.
 *
 * Only a gateway process that runs every shard sees every guild, so only there can "in no guild" be told; a process
 * running some of the shards (SHARD_IDS a subset of SHARD_COUNT) records nothing and erases nothing (it says so once).
 */
import type { Logger } from '../lib/logger.js'
import type { PrivacyRows } from '../mysql/privacy-rows.js'
import type { ForgetService } from './forget-service.js'

/** How often the due erasures are looked for. */
export const LEAVE_SWEEP_EVERY_MS = 60 * 60_000
const SWEEP_BATCH = 100

/** What the expiry needs. */
export interface LeaveExpiryDeps {
  rows: Pick<PrivacyRows, 'markLeft' | 'markBack' | 'leftBefore'>
  forget: Pick<ForgetService, 'forget'>
  /** Whether the user is in any guild of the bot now (asked of Discord). */
  memberOfAny(userId: string): Promise<boolean>
  afterDays: number
  /** True when this process runs every shard (sees every guild of the bot). */
  seesEveryGuild: boolean
  log: Logger
  now?: () => Date
}

/** The running expiry. */
export interface LeaveExpiry {
  /** A member left a guild: records the time when they are in no other guild of the bot. */
  left(userId: string): Promise<void>
  /** A member joined a guild: they are back. */
  joined(userId: string): Promise<void>
  /** Erases the users gone for `afterDays` (asked once more first); what it did. */
  sweep(): Promise<{ erased: number; back: number }>
  /** Sweeps now and every `everyMs` (unref'd); failures are logged. */
  start(everyMs?: number): void
  stop(): void
}

/** Creates the expiry. */
export function createLeaveExpiry(deps: LeaveExpiryDeps): LeaveExpiry {
  const now = deps.now ?? (() => new Date())
  let timer: NodeJS.Timeout | undefined
  const expiry: LeaveExpiry = {
    async left(userId) {
      if (!deps.seesEveryGuild || (await deps.memberOfAny(userId))) return
      const marked = await deps.rows.markLeft(userId, now())
      if (marked > 0) deps.log.info({ codes: marked, afterDays: deps.afterDays }, 'a code holder left every guild: their data is erased if they do not come back')
    },
    async joined(userId) {
      await deps.rows.markBack(userId)
    },
    async sweep() {
      let erased = 0
      let back = 0
      if (!deps.seesEveryGuild) return { erased, back }
      const cutoff = new Date(now().getTime() - deps.afterDays * 86_400_000)
      for (;;) {
        const due = await deps.rows.leftBefore(cutoff, SWEEP_BATCH)
        if (due.length === 0) break
        for (const userId of due) {
          if (await deps.memberOfAny(userId)) {
            await deps.rows.markBack(userId)
            back++
          } else {
            await deps.forget.forget(userId, { source: 'expiry', name: `left every guild ${deps.afterDays}+ days ago` })
            erased++
          }
        }
      }
      if (erased + back > 0) deps.log.info({ erased, back }, 'leave expiry swept')
      return { erased, back }
    },
    start(everyMs = LEAVE_SWEEP_EVERY_MS) {
      if (!deps.seesEveryGuild) {
        deps.log.warn('leave expiry off in this process: it runs only some of the shards, so it cannot tell that a member left every guild')
        return
      }
      const run = () => void expiry.sweep().catch((err: Error) => deps.log.warn({ err: err.message }, 'leave expiry sweep failed'))
      run()
      timer ??= setInterval(run, everyMs)
      timer.unref()
    },
    stop() {
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
    },
  }
  return expiry
}
