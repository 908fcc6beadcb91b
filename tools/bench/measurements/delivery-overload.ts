/**
 * A chat destination under more events than it can show: the sandbox with Discord's rate limits (a channel takes 5
 * messages per 5 s, a webhook 5 per 2 s), the front (FRONT_WORKERS=1) and one worker (`worker log delivery`) as child
 * processes, one category pointed at a sandbox channel (or webhook), the service's defaults otherwise.
 *
 * RATE single-event POSTs a second to that category for SECONDS (a mix of player joins and leaves, chat lines and a
 * few moderation events carrying a code), then up to DRAIN_SECONDS more while the backlog drains. Every second it
 * samples the backlog (pending entries of the category in MySQL), the age of the oldest pending entry and the
 * messages the sandbox accepted; at the end it counts the entries by delivery state, the 429s the sandbox answered,
 * and the delay from receipt to delivery (`delivered_at - received_at`) of the delivered entries.
 */
import { randomBytes } from 'node:crypto'
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { sql } from 'kysely'
import { sleep, waitFor } from '../../harness/readiness.js'
import { control, startSandbox, type Sandbox } from '../../harness/sandbox.js'
import type { Scratch } from '../../harness/scratch.js'
import { openDeliveryWorld, type DeliveryWorld } from './delivery-world.js'
import { percentile } from '../../harness/stats.js'
import { DefaultIds } from '../../../src/sandbox/world.js'

/** What one overload run is asked to do. */
export interface OverloadPlan {
  /** Events posted per second. */
  rate: number
  /** Seconds of posting. */
  seconds: number
  /** Where the category goes: a sandbox channel (the bot posts) or a webhook on it. */
  destination: 'channel' | 'webhook'
  /** Seconds to wait for the backlog to drain after the posting ends. */
  drainSeconds: number
  /** Service environment on top of the bench's (say, DELIVERY_DIGEST_* settings). */
  env?: Record<string, string>
}

/** One sample, taken every second from the first POST. */
export interface OverloadSample {
  atSeconds: number
  accepted: number
  pending: number
  /** Seconds since the oldest pending entry was received; 0 when nothing waits. */
  oldestPendingSeconds: number
  /** Messages the sandbox accepted so far. */
  messages: number
}

/** The run's figures. */
export interface OverloadResult {
  plan: OverloadPlan
  category: string
  accepted: number
  postSeconds: number
  samples: OverloadSample[]
  /** Entries of the run by delivery state at the end. */
  states: Record<string, number>
  /** Messages the sandbox accepted (200/204) and refused with 429, over the whole run. */
  messages: number
  rateLimited: number
  /** Messages whose title names a digest. */
  digestMessages: number
  /** Seconds from the end of posting until nothing was pending, or null when the backlog outlived the drain wait. */
  drainSeconds: number | null
  /** Receipt-to-delivery delay of the delivered entries (sent or summarized), ms. */
  delayP50Ms: number
  delayP95Ms: number
  delayMaxMs: number
  note: string
}

const CATEGORY = 'ingame'

/** The event of the `i`-th POST: joins and leaves, chat, and one moderation event with a code in 100. */
function eventOf(i: number, tag: string): Record<string, unknown> {
  const player = { platform_username: `Player_${i % 500}`, platform_user_id: 1000 + (i % 500) }
  if (i % 100 === 99) return { event_type: 'kick', description: `${tag}: kicked for speed hacking (event ${i})`, ...player, issued_by: 'AntiCheat', code: 'K1CK' }
  const kinds = ['player_join', 'player_leave', 'player_join', 'player_leave', 'chat_message'] as const
  const kind = kinds[i % kinds.length]!
  return { event_type: kind, description: `${tag}: ${player.platform_username} ${kind.replace('_', ' ')} (event ${i})`, ...player }
}

async function pendingNow(scratch: Scratch, since: Date): Promise<{ pending: number; oldestMs: number | null }> {
  const row = await scratch.db
    .selectFrom('log_entries')
    .select([sql<number>`COUNT(*)`.as('n'), sql<Date | null>`MIN(received_at)`.as('oldest')])
    .where('category', '=', CATEGORY)
    .where('delivery_state', '=', 'pending')
    .where('received_at', '>=', since)
    .executeTakeFirstOrThrow()
  return { pending: Number(row.n), oldestMs: row.oldest === null ? null : new Date(row.oldest).getTime() }
}

/** `fn`, tried again up to twice when it throws (a kept-alive connection the sandbox closed as the request left). */
async function retried<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn()
    } catch (err) {
      if (i >= attempts) throw err
    }
  }
}

async function sandboxCounts(sandbox: Sandbox): Promise<{ ok: number; limited: number }> {
  const { byRoute } = await retried(() => control<{ byRoute: Record<string, number> }>(sandbox, 'GET', 'requests'))
  let ok = 0
  let limited = 0
  for (const [key, n] of Object.entries(byRoute)) {
    if (!/^POST \/(channels\/:id\/messages|webhooks\/:id\/:token) /.test(key)) continue
    if (key.endsWith(' 429')) limited += n
    else if (/ 20\d$/.test(key)) ok += n
  }
  return { ok, limited }
}

/** Posts at `rate` per second for `seconds`, with at most `inFlight` requests open; returns how many were accepted. */
async function postPaced(post: (i: number) => Promise<boolean>, rate: number, seconds: number, onAccepted: () => void): Promise<number> {
  const total = rate * seconds
  const inFlight = new Set<Promise<void>>()
  let accepted = 0
  const t0 = performance.now()
  for (let i = 0; i < total; i++) {
    const wait = t0 + (i * 1000) / rate - performance.now()
    if (wait > 0) await sleep(wait)
    while (inFlight.size >= 200) await Promise.race(inFlight)
    const p: Promise<void> = post(i).then((ok) => {
      if (ok) {
        accepted++
        onAccepted()
      }
      inFlight.delete(p)
    })
    inFlight.add(p)
  }
  await Promise.all(inFlight)
  return accepted
}

/** Runs one overload on a world of its own and removes what it made. */
export async function measureOverload(plan: OverloadPlan, log: (message: string) => void): Promise<OverloadResult> {
  const sandbox = await startSandbox()
  let opened: DeliveryWorld | undefined
  try {
    const hook = plan.destination === 'webhook' ? await control<{ url: string }>(sandbox, 'POST', 'webhooks', { channel_id: DefaultIds.ingameLog, name: 'bench' }) : null
    opened = await openDeliveryWorld(sandbox, 'dover', { LOG_DESTINATION_INGAME: hook?.url ?? DefaultIds.ingameLog, ...plan.env }, log)
    const { world, bearer } = opened
    // The delivery consumer writes LOG_DESTINATION_INGAME into MySQL as it starts: an entry stored before that is `none`.
    await waitFor('the ingame destination seeded', async () => (await world.db.selectFrom('log_destinations').select('category').where('category', '=', CATEGORY).executeTakeFirst()) !== undefined, 120_000, 50)
    await control(sandbox, 'DELETE', 'requests')

    const tag = `overload_${randomBytes(3).toString('hex')}`
    const post = async (i: number): Promise<boolean> => {
      const res = await fetch(`${world.api}/log/${CATEGORY}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: bearer },
        body: JSON.stringify(eventOf(i, tag)),
      }).catch(() => null)
      if (res === null) return false
      await res.arrayBuffer()
      return res.status === 200
    }
    const since = new Date(Date.now() - 1000)
    const startedWall = Date.now()
    const samples: OverloadSample[] = []
    let accepted = 0
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        // The next whole second from the start (a slow sample skips seconds rather than bunching up behind them).
        await sleep(1000 - ((Date.now() - startedWall) % 1000))
        // A sample that fails (a kept-alive connection closed under it, a slow query) is skipped, not fatal.
        const read = await Promise.all([pendingNow(world, since), sandboxCounts(sandbox)]).catch(() => null)
        if (read === null) continue
        const [backlog, counts] = read
        const now = Date.now()
        samples.push({
          atSeconds: Math.round((now - startedWall) / 1000),
          accepted,
          pending: backlog.pending,
          oldestPendingSeconds: backlog.oldestMs === null ? 0 : (now - backlog.oldestMs) / 1000,
          messages: counts.ok,
        })
      }
    })()
    const postStarted = performance.now()
    const total = await postPaced(post, plan.rate, plan.seconds, () => accepted++)
    const postSeconds = (performance.now() - postStarted) / 1000
    const postEnded = Date.now()
    log(`posted ${total} of ${plan.rate * plan.seconds} accepted in ${postSeconds.toFixed(1)} s; waiting up to ${plan.drainSeconds} s for the backlog`)
    let drainSeconds: number | null = null
    while (Date.now() - postEnded < plan.drainSeconds * 1000) {
      if ((await pendingNow(world, since)).pending === 0) {
        drainSeconds = (Date.now() - postEnded) / 1000
        break
      }
      await sleep(250)
    }
    sampling = false
    await sampler
    // Let the message in flight be recorded before counting.
    await sleep(1500)
    const stateRows = await world.db
      .selectFrom('log_entries')
      .select(['delivery_state', sql<number>`COUNT(*)`.as('n')])
      .where('category', '=', CATEGORY)
      .where('received_at', '>=', since)
      .groupBy('delivery_state')
      .execute()
    const states = Object.fromEntries(stateRows.map((r) => [r.delivery_state, Number(r.n)]))
    const delivered = await world.db
      .selectFrom('log_entries')
      .select(['received_at', 'delivered_at'])
      .where('category', '=', CATEGORY)
      .where('received_at', '>=', since)
      .where('delivered_at', 'is not', null)
      .execute()
    const delays = delivered.map((r) => r.delivered_at!.getTime() - r.received_at.getTime())
    const counts = await sandboxCounts(sandbox)
    const messages = await retried(() => control<Array<{ embeds: Array<{ title?: string }> }>>(sandbox, 'GET', `messages?channel_id=${DefaultIds.ingameLog}`))
    const digestMessages = messages.filter((m) => /digest/i.test(m.embeds[0]?.title ?? '')).length
    return {
      plan,
      category: CATEGORY,
      accepted: total,
      postSeconds,
      samples,
      states,
      messages: counts.ok,
      rateLimited: counts.limited,
      digestMessages,
      drainSeconds,
      delayP50Ms: delays.length === 0 ? Number.NaN : percentile(delays, 50),
      delayP95Ms: delays.length === 0 ? Number.NaN : percentile(delays, 95),
      delayMaxMs: delays.length === 0 ? Number.NaN : Math.max(...delays),
      note: `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? '?'}, node ${process.version}`,
    }
  } finally {
    try {
      await opened?.close()
    } finally {
      await sandbox.close()
    }
  }
}
