/**
 * The delivery consumer: posts stored log entries to each category's destination, in order, batched.
 *
 * Ordering: for each category, exactly one process posts at a time, the holder of a Redis lease (redis/delivery-lease.ts); every
 * delivery process runs a loop per category and the others only retry the lease, so any number of processes can
 * run and one takes over within the lease's life (15 s) when the holder dies. The holder reads the oldest pending
 * entries by id with a locking read (mysql/log-entry-rows.ts), so an entry whose transaction commits late is waited for,
 * not overtaken; it sends one message at a time and records each before the next, so a retry, a 429 or a restart
 * resumes exactly where the order stopped. Delivery is at least once: a crash between Discord's answer and the
 * MySQL update posts that message again.
 *
 * Batching: a read packs up to 100 entries into messages of at most 10 embeds and 6,000 characters; full messages
 * go at once, the partial tail waits until its oldest entry has been seen pending for DELIVERY_BATCH_MS.
 *
 * Rate limits and failures: every request first passes the shared Redis gate (DELIVERY_RATE_LIMIT per second over all
 * processes); a 429 is waited out for its retry_after and the same message sent again without spending an attempt;
 * 5xx and network errors retry the same message with backoff, indefinitely (nothing is dropped; later entries wait
 * behind it); 401/403/404 disable the destination (its entries stay pending until `destinations retry`); any other
 * 4xx fails that message's entries with the reason (a multi-entry message is first split to find the culprit).
 *
 * Digest mode (model/digest.ts): before each read, the holder checks whether the destination has fallen behind (more
 * than DELIVERY_DIGEST_BACKLOG entries pending, or the oldest waiting DELIVERY_DIGEST_AFTER_MS, and more than 50 either
 * way). It then posts one digest message every DELIVERY_DIGEST_EVERY_MS instead of the entries: counts by event type,
 * the moderation and most recent lines, and the command that reads them all; the entries it covers become `digested`
 * with the digest's message id, so none is later posted alone. A digest time that finds few enough waiting (what the
 * interval would show one by one) goes back to posting entry by entry. The mode lives in the lease holder.
 */
import { holderId } from '../lib/holder-id.js'
import type { Config } from '../config.js'
import { abortableSleep } from '../lib/abortable-sleep.js'
import { packMessages, readyCount, type Outgoing, type PackedMessage } from './model/batching.js'
import { describeTarget, DESTINATION_VARIABLE, parseDestinationTarget, type DestinationTarget } from './model/destination.js'
import {
  caughtUpAt,
  countCap,
  DIGEST_MAX_ENTRIES,
  fallenBehind,
  planDigest,
  renderDigest,
  type BehindReason,
  type DigestRow,
  type DigestSettings,
} from './model/digest.js'
import { messagePayload, renderEntryEmbed, type MessagePayload } from './model/embeds.js'
import { LOG_CATEGORIES, type LogCategoryName } from '../queue/model/log-categories.js'
import { backoffMs } from './model/send-outcome.js'
import type { Logger } from '../lib/logger.js'
import type { DeliveryMetrics } from '../metrics/delivery-metrics.js'
import type { DestinationRows, StoredDestination } from '../mysql/destination-rows.js'
import type { LogEntryRows, PendingEntry } from '../mysql/log-entry-rows.js'
import type { DeliveryLease } from '../redis/delivery-lease.js'
import type { RateGate } from '../redis/delivery-rate-gate.js'
import { createDiscordPoster, type Poster } from './discord-poster.js'

/** How long a lease lasts without renewal; the holder renews every third of it. */
export const LEASE_MS = 15_000

const ACQUIRE_EVERY_MS = 1000
const ERROR_PAUSE_MS = 1000
const READ_LIMIT = 100
/** A pass of entry-by-entry messages reads again after this long (a channel's bucket paces it to one message a second). */
const RECHECK_AFTER_MS = 1000

/** What the delivery consumer needs, built by the process that runs it (runtime/consumers.ts). */
export interface DeliveryDeps {
  /** The destinations, re-reading stored targets with DISCORD_API. */
  destinations: DestinationRows
  entries: Pick<
    LogEntryRows,
    'hasPending' | 'readPending' | 'countPending' | 'readDigestRows' | 'readEntries' | 'markSent' | 'markFailed' | 'markDigested' | 'markNoDestination'
  >
  /** Opens the lease of a category for the holder token `holder`. */
  openLease(category: LogCategoryName, holder: string, ttlMs: number): DeliveryLease
  /** Opens the shared request budget for the holder token `holder`. */
  openGate(holder: string): RateGate
  config: Pick<
    Config,
    | 'discordToken'
    | 'discordApi'
    | 'logDestinations'
    | 'deliveryRateLimit'
    | 'deliveryBatchMs'
    | 'deliveryPollMs'
    | 'deliveryDigestBacklog'
    | 'deliveryDigestAfterMs'
    | 'deliveryDigestEveryMs'
  >
  log: Logger
  metrics?: DeliveryMetrics
  /** Clock in epoch ms (tests may pass their own). */
  now?: () => number
}

/** A running delivery consumer. */
export interface DeliveryRunner {
  /** Stops after the request in flight, records it, and gives the leases up. */
  close(): Promise<void>
}

type Usable = { ok: true; target: DestinationTarget; stored: StoredDestination } | { ok: false; why: 'none' | 'disabled' | 'unavailable'; detail: string }

/** Writes each LOG_DESTINATION_* that is set into MySQL (a changed one replaces the stored destination). */
async function seedDestinations(deps: Pick<DeliveryDeps, 'destinations' | 'config' | 'log'>): Promise<void> {
  const { destinations, config, log } = deps
  for (const category of LOG_CATEGORIES) {
    const value = config.logDestinations[category]
    if (value === '') continue
    const parsed = parseDestinationTarget(value, config.discordApi)
    if (!parsed.ok) throw new Error(`${DESTINATION_VARIABLE[category]} ${parsed.message}`)
    if (await destinations.set(category, parsed.target, `env:${DESTINATION_VARIABLE[category]}`, { enable: false })) {
      log.info({ category, destination: describeTarget(parsed.target) }, 'delivery destination set from the environment')
    }
  }
}

/** A sleep that ends early when `signal` aborts. */
function sleeperOn(signal: AbortSignal): (ms: number) => Promise<void> {
  return (ms) => abortableSleep(ms, signal)
}

/** Whether a stored destination can be posted to; `discordToken` is DISCORD_TOKEN ('' when there is none). */
function usableOf(stored: StoredDestination | undefined, discordToken: string): Usable {
  if (stored === undefined) return { ok: false, why: 'none', detail: 'no destination' }
  if (stored.disabledAt !== null) return { ok: false, why: 'disabled', detail: stored.disabledReason ?? 'disabled' }
  if (!stored.target.ok) return { ok: false, why: 'unavailable', detail: `the stored target ${stored.target.message}` }
  if (stored.target.target.kind === 'channel' && discordToken === '') {
    return { ok: false, why: 'unavailable', detail: 'a channel destination needs DISCORD_TOKEN' }
  }
  return { ok: true, target: stored.target.target, stored }
}

/** One category's loop and what its steps share. */
interface CategoryRun {
  category: LogCategoryName
  deps: DeliveryDeps
  now: () => number
  signal: AbortSignal
  sleep: (ms: number) => Promise<void>
  lease: DeliveryLease
  poster: Poster
  /** When each pending entry was first seen (the batching window counts from it). */
  firstSeen: Map<string, number>
  /** The destination state last logged: 'active', or why not. */
  reported: string
  /** Digest mode while the destination has fallen behind; null while it keeps up. */
  digest: DigestState | null
}

/** A destination in digest mode: since when, why, and when its next digest is due (epoch ms). */
interface DigestState {
  since: number
  reason: BehindReason
  nextAt: number
}

/** The digest settings of the configuration. */
function digestSettings(config: DeliveryDeps['config']): DigestSettings {
  return { backlog: config.deliveryDigestBacklog, afterMs: config.deliveryDigestAfterMs, everyMs: config.deliveryDigestEveryMs }
}

/** Logs a destination's state once per change, and keeps the disabled gauge current in every process. */
function observe(run: CategoryRun, usable: Usable): void {
  const { category, deps } = run
  const state = usable.ok ? 'active' : `${usable.why}:${usable.detail}`
  deps.metrics?.setDisabled(category, !usable.ok && usable.why !== 'none')
  if (state === run.reported) return
  run.reported = state
  if (!usable.ok && usable.why === 'disabled') {
    deps.log.warn({ category, reason: usable.detail }, `delivery destination is disabled; its entries wait for \`presence-link destinations retry ${category}\``)
  } else if (!usable.ok && usable.why === 'unavailable') {
    deps.log.warn({ category, reason: usable.detail }, 'delivery destination cannot be used; its entries wait')
  }
}

/** What became of a message: posted (its id), refused for good (4xx), or 'stop' (lease lost, stopping, destination disabled). */
type Posted = { kind: 'sent'; messageId: string } | { kind: 'rejected'; status: number; reason: string } | { kind: 'stop' }

/**
 * Posts one message until Discord answers for good: a 429 is waited out (no attempt spent), 5xx and network errors
 * are retried with backoff, and 401/403/404 disable the destination ('stop').
 */
async function post(run: CategoryRun, usable: Usable & { ok: true }, payload: MessagePayload): Promise<Posted> {
  const { category, deps, lease, poster } = run
  const { destinations, metrics, log } = deps
  let attempt = 0
  for (;;) {
    if (run.signal.aborted || !(await lease.confirm())) return { kind: 'stop' }
    const outcome = await poster.post(usable.target, payload)
    switch (outcome.kind) {
      case 'sent':
        metrics?.request(category, 'sent')
        return outcome
      case 'rate_limited':
        if (outcome.requestMade) {
          metrics?.request(category, 'rate_limited')
          log.info({ category, retryAfterMs: outcome.retryAfterMs }, 'delivery rate limited; waiting it out')
        }
        await run.sleep(outcome.retryAfterMs)
        continue
      case 'disable':
        metrics?.request(category, 'disabled')
        await destinations.disable(category, usable.stored.targetText, outcome.reason)
        poster.forget(usable.target)
        log.error(
          { category, status: outcome.status, reason: outcome.reason, destination: describeTarget(usable.target) },
          `delivery destination refused and disabled; its entries stay pending until \`presence-link destinations retry ${category}\``,
        )
        run.reported = `disabled:${outcome.reason}`
        metrics?.setDisabled(category, true)
        return { kind: 'stop' }
      case 'rejected':
        metrics?.request(category, 'failed')
        return outcome
      case 'transient':
        metrics?.request(category, 'failed')
        attempt++
        log.warn({ category, attempt, reason: outcome.reason }, 'delivery failed; retrying the same message')
        await run.sleep(backoffMs(attempt))
        continue
    }
  }
}

/**
 * Sends one message of entries and records what became of them; 'stop' when {@link post} stops. A rejected message
 * of several entries is sent again entry by entry to find the culprit.
 */
async function send(run: CategoryRun, usable: Usable & { ok: true }, message: PackedMessage): Promise<'ok' | 'stop'> {
  const { category, deps, firstSeen } = run
  const { entries, metrics, log } = deps
  const ids = message.entries.map((e) => e.id)
  const posted = await post(run, usable, messagePayload(message.entries.map((e) => e.embed)))
  if (posted.kind === 'stop') return 'stop'
  if (posted.kind === 'sent') {
    await entries.markSent(ids, posted.messageId, new Date(run.now()))
    for (const id of ids) firstSeen.delete(id)
    metrics?.entriesDelivered(category, ids.length)
    return 'ok'
  }
  if (message.entries.length > 1) {
    for (const entry of message.entries) {
      if ((await send(run, usable, { entries: [entry], size: 0 })) === 'stop') return 'stop'
    }
    return 'ok'
  }
  await entries.markFailed(ids, posted.reason)
  log.warn({ category, entries: ids, status: posted.status, reason: posted.reason }, 'Discord refused a log entry; marked failed')
  return 'ok'
}

/** Switches a category to digest mode: its next pass posts a digest. */
function enterDigest(run: CategoryRun, reason: BehindReason, pending: number, oldestWaitMs: number): void {
  const now = run.now()
  run.digest = { since: now, reason, nextAt: now }
  run.firstSeen.clear()
  run.deps.metrics?.setDigestMode(run.category, true)
  run.deps.log.warn(
    { category: run.category, reason, pending, oldestWaitSeconds: Math.round(oldestWaitMs / 1000) },
    'delivery destination fell behind: posting digest messages instead of one embed per entry (every entry stays stored)',
  )
}

/** Leaves digest mode (caught up, or no longer the poster); `waiting` entries go out one by one if it still posts. */
function leaveDigest(run: CategoryRun, waiting: number | null): void {
  if (run.digest === null) return
  if (waiting !== null) {
    run.deps.log.info({ category: run.category, waiting, digestSeconds: Math.round((run.now() - run.digest.since) / 1000) }, 'delivery destination caught up: posting entry by entry again')
  }
  run.digest = null
  run.deps.metrics?.setDigestMode(run.category, false)
}

/** Whether the destination has fallen behind, judged from the oldest pending entries just read. */
async function fallenBehindNow(run: CategoryRun, pending: readonly PendingEntry[]): Promise<{ reason: BehindReason; count: number; waitMs: number } | null> {
  const settings = digestSettings(run.deps.config)
  const waitMs = run.now() - pending[0]!.waitingSince.getTime()
  // A read shorter than its limit holds every pending entry; a full one needs a count (bounded by the cap).
  const count = pending.length < READ_LIMIT ? pending.length : await run.deps.entries.countPending(run.category, countCap(settings))
  const reason = fallenBehind(settings, count, waitMs)
  return reason === null ? null : { reason, count, waitMs }
}

/** Posts one digest of `rows` and records its entries as digested (or failed, should Discord refuse it). */
async function sendDigest(run: CategoryRun, usable: Usable & { ok: true }, rows: readonly DigestRow[]): Promise<'ok' | 'stop'> {
  const { category, deps } = run
  const plan = planDigest(category, rows)
  const shown = await deps.entries.readEntries([...plan.moderation.ids, ...plan.recentIds])
  const posted = await post(run, usable, renderDigest(plan, shown))
  if (posted.kind === 'stop') return 'stop'
  if (posted.kind === 'rejected') {
    // Never expected (a digest is built within Discord's limits): the entries are marked so the digest is not retried forever.
    for (let i = 0; i < plan.ids.length; i += READ_LIMIT * 10) await deps.entries.markFailed(plan.ids.slice(i, i + READ_LIMIT * 10), `digest refused: ${posted.reason}`)
    deps.log.error({ category, entries: plan.ids.length, status: posted.status, reason: posted.reason }, 'Discord refused a digest; its entries are marked failed')
    return 'ok'
  }
  const marked = await deps.entries.markDigested(plan.ids, posted.messageId, new Date(run.now()))
  deps.metrics?.entriesDigested(category, marked)
  deps.log.info({ category, entries: marked, first: plan.ids[0], last: plan.ids[plan.ids.length - 1], messageId: posted.messageId }, 'delivery digest posted')
  return 'ok'
}

/** A pass in digest mode: when a digest is due, one digest of what waits, or back to entry by entry when little waits. */
async function digestPass(run: CategoryRun, usable: Usable & { ok: true }, state: DigestState): Promise<boolean> {
  const settings = digestSettings(run.deps.config)
  const startedAt = run.now()
  if (startedAt < state.nextAt) return false
  const rows = await run.deps.entries.readDigestRows(run.category, DIGEST_MAX_ENTRIES)
  if (rows.length <= caughtUpAt(settings)) {
    leaveDigest(run, rows.length)
    return rows.length > 0
  }
  if ((await sendDigest(run, usable, rows)) === 'stop') return false
  // The interval counts from this digest's start, so reading, posting and marking it do not stretch the cadence.
  const more = rows.length >= DIGEST_MAX_ENTRIES
  state.nextAt = more ? run.now() : startedAt + settings.everyMs
  return more
}

/** One pass: returns true when it sent something (so the loop reads again at once). */
async function flush(run: CategoryRun): Promise<boolean> {
  const { category, deps, firstSeen } = run
  const { entries, config } = deps
  const usable = usableOf(await deps.destinations.get(category), config.discordToken)
  observe(run, usable)
  if (!usable.ok) {
    if (usable.why === 'none' && (await entries.hasPending(category))) await entries.markNoDestination(category)
    firstSeen.clear()
    leaveDigest(run, null)
    return false
  }
  if (run.digest !== null) return digestPass(run, usable, run.digest)
  if (!(await entries.hasPending(category))) {
    firstSeen.clear()
    return false
  }
  const pending = await entries.readPending(category, READ_LIMIT)
  if (pending.length === 0) {
    firstSeen.clear()
    return false
  }
  const behind = await fallenBehindNow(run, pending)
  if (behind !== null) {
    enterDigest(run, behind.reason, behind.count, behind.waitMs)
    return true
  }
  const seenAt = run.now()
  const outgoing: Outgoing[] = pending.map((e) => ({ id: e.id, embed: renderEntryEmbed(e), firstSeenMs: firstSeen.get(e.id) ?? seenAt }))
  firstSeen.clear()
  for (const o of outgoing) firstSeen.set(o.id, o.firstSeenMs)
  const messages = packMessages(outgoing)
  const ready = readyCount(messages, { nowMs: run.now(), windowMs: config.deliveryBatchMs })
  const passStarted = run.now()
  for (const [i, message] of messages.slice(0, ready).entries()) {
    // A pass that has waited for the channel's bucket reads again (and checks whether it fell behind) before going on.
    if (i > 0 && run.now() - passStarted >= RECHECK_AFTER_MS) return true
    if ((await send(run, usable, message)) === 'stop') return false
  }
  return ready > 0
}

/** Posts one category while this process holds its lease, retrying the lease otherwise, until `run.signal` aborts. */
async function runCategory(run: CategoryRun): Promise<void> {
  const { category, deps, lease, firstSeen } = run
  const { log, metrics } = deps
  while (!run.signal.aborted) {
    try {
      if (!lease.held) {
        firstSeen.clear()
        leaveDigest(run, null)
        if (!(await lease.acquire())) {
          if (metrics !== undefined) observe(run, usableOf(await deps.destinations.get(category), deps.config.discordToken))
          await run.sleep(ACQUIRE_EVERY_MS)
          continue
        }
        log.info({ category }, 'delivery lease taken: this process posts the category')
      }
      if (!(await flush(run))) await run.sleep(deps.config.deliveryPollMs)
    } catch (err) {
      if (run.signal.aborted) break
      log.warn({ category, err: (err as Error).message }, 'delivery pass failed; retrying')
      await run.sleep(ERROR_PAUSE_MS)
    }
  }
  leaveDigest(run, null)
  await lease.release()
}

/** Seeds LOG_DESTINATION_* into MySQL and starts one loop per category. */
export async function startDelivery(deps: DeliveryDeps): Promise<DeliveryRunner> {
  const { config, log } = deps
  const now = deps.now ?? Date.now
  const holder = holderId()
  const stop = new AbortController()
  const gate = deps.openGate(holder)
  await seedDestinations(deps)
  const sleep = sleeperOn(stop.signal)
  const loops = LOG_CATEGORIES.map((category) =>
    runCategory({
      category,
      deps,
      now,
      signal: stop.signal,
      sleep,
      lease: deps.openLease(category, holder, LEASE_MS),
      poster: createDiscordPoster({ discordApi: config.discordApi, token: config.discordToken, gate, signal: stop.signal }),
      firstSeen: new Map(),
      reported: '',
      digest: null,
    }),
  )
  log.info({ categories: LOG_CATEGORIES, ratePerSecond: config.deliveryRateLimit, batchMs: config.deliveryBatchMs }, 'delivery started')
  let closing: Promise<void> | undefined
  return {
    close() {
      closing ??= (async () => {
        stop.abort()
        await Promise.allSettled(loops)
      })()
      return closing
    },
  }
}
