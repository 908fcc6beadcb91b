/**
 * The push publisher: follows the change feed and, for each universe with live push subscriptions, publishes the
 * callbacks blocks of its subscribed codes that changed to Roblox Open Cloud messaging, so live servers hear of a
 * change without polling (the module keeps polling slowly, since delivery is best effort).
 *
 * Windows: changes are gathered for PUSH_WINDOW_MS, then each universe's changed codes are rendered (through the same
 * read path as the front, so a block is exactly what callbacks answers) and compared with what its servers were last
 * told (redis/push-sent-blocks.ts); the blocks that differ go out together in one message of at most 1 kB, or, when
 * they do not fit, as the codes only (push/model/push-message.ts). A code changed again before it went out is merged.
 *
 * One publisher per universe: a Redis lease per universe (redis/delivery-lease.ts, `{p}:push:lease:{universe}`), so any
 * number of workers can run and a change is published by one of them. A publisher taking a universe over first compares
 * every subscribed block with the recorded ones, and publishes what changed while nobody held it.
 *
 * Limits: each message takes a slot of the universe's budget of the minute and of the owner's
 * (redis/push-rate-gates.ts, push/model/publish-budget.ts); what does not fit waits, merged, for the next window. A 429
 * is waited out for its Retry-After (else 1 s doubling to a minute), as are 5xx answers and network failures; a
 * refusal (400, 401, 403, 404) drops that message's changes, and after 401, 403 or 404 the universe waits a minute.
 */
import { createHash } from 'node:crypto'
import type { Config } from '../config.js'
import { abortableSleep } from '../lib/abortable-sleep.js'
import type { Logger } from '../lib/logger.js'
import { renderCallbackBlock } from '../presence/model/blocks.js'
import type { ChangeFeed } from '../redis/change-feed.js'
import type { CodeLookup } from '../redis/code-lookup.js'
import type { DeliveryLease } from '../redis/delivery-lease.js'
import type { PushRateGates } from '../redis/push-rate-gates.js'
import type { PushSentBlocks } from '../redis/push-sent-blocks.js'
import type { PushSubscriptions } from '../redis/push-subscriptions.js'
import { createPendingChanges, type PendingChanges } from './model/pending-changes.js'
import { MESSAGES_PER_WINDOW, retryDelayMs, universeBudgetPerMinute } from './model/publish-budget.js'
import { planMessages, type PlannedMessage } from './model/push-message.js'
import { summarize, type UniverseSubscriptions } from './model/subscription.js'
import { describeOutcome, refusalKind, type OpenCloudPublish } from './open-cloud.js'
import { loadKeysAtStart, type LoadedKeys, type PushTargets, type UniverseKey } from './push-targets.js'

/** How long a universe's lease lasts without renewal (renewed every third of it). */
export const PUSH_LEASE_MS = 15_000

/** How often the targets' keys are read again from MySQL (a `push add` or `push remove` takes effect within this). */
export const KEYS_RELOAD_MS = 10_000

/** How often they are read while a universe with live subscriptions has no key (one just attached, say). */
export const MISSING_KEY_RELOAD_MS = 1000

/** How long a universe waits after Open Cloud refused its key (401, 403, 404) before publishing again. */
export const REFUSED_PAUSE_MS = 60_000

/** Why changes were given up (the label of the dropped metric). */
export type DropReason = 'refused' | 'no_target'

/** Hooks for the push metrics (src/metrics/push-metrics.ts); every one optional. */
export interface PushMetrics {
  published?(kind: PlannedMessage['kind']): void
  coalesced?(count: number): void
  dropped?(reason: DropReason, count: number): void
  failed?(reason: ReturnType<typeof refusalKind>): void
  lag?(seconds: number): void
  state?(read: () => { universes: number; pending: number }): void
}

/** What the publisher needs, built by its consumer (src/runtime/consumers.ts). */
export interface PublisherDeps {
  feed: Pick<ChangeFeed, 'onChange' | 'onLive' | 'live'>
  lookup: CodeLookup
  subscriptions: Pick<PushSubscriptions, 'read' | 'universes'>
  sent: PushSentBlocks
  gates: PushRateGates
  openLease(universe: number): DeliveryLease
  loadKeys(): Promise<LoadedKeys>
  publish: OpenCloudPublish
  config: Pick<Config, 'pushWindowMs' | 'pushSubscriptionSeconds'>
  log: Logger
  metrics?: PushMetrics
  now?: () => number
}

/** A running publisher. */
export interface Publisher {
  /** Finishes the window in progress, then gives every lease up. */
  close(): Promise<void>
}

/** One universe as this publisher sees it. */
interface UniverseState {
  universe: number
  lease: DeliveryLease
  pending: PendingChanges
  /** Compare every subscribed code with what was recorded (after taking the lease, a `*` change, a lost feed, a failed window). */
  fullCheck: boolean
  /** It had no usable Open Cloud key at its last window: once it has one, every code is compared. */
  keyless: boolean
  failures: number
  waitUntil: number
}

/** What the feed said of one code within a window. */
interface Mention {
  since: number
  count: number
}

/** The publisher's state across windows. */
interface Run {
  deps: PublisherDeps
  now: () => number
  universes: Map<number, UniverseState>
  /** Codes named by the feed since the last window: the writer's time of the oldest change, and how many named it. */
  changed: Map<string, Mention>
  everything: boolean
  keys: LoadedKeys
  keysAt: number
  /** The unreadable targets last logged, so each is logged once per change. */
  reportedUnreadable: string
}

/** The digest recorded per code: enough to tell two blocks apart, short enough to keep per code. */
export function blockDigest(block: string): string {
  return createHash('sha1').update(block).digest('base64url').slice(0, 12)
}

/**
 * Starts a push consumer's publisher: refuses (PushConfigError, before `openReadPath` is called) when push targets
 * exist but PUSH_SECRET is not set or opens none of their keys; then follows the read path and says so, with the
 * targets it starts with.
 */
export async function startPushPublisher(
  deps: Omit<PublisherDeps, 'feed' | 'lookup' | 'loadKeys' | 'config'> & {
    targets: Pick<PushTargets, 'loadKeys' | 'count'>
    openReadPath(): Promise<Pick<PublisherDeps, 'feed' | 'lookup'>>
    config: PublisherDeps['config'] & Pick<Config, 'pushSecret' | 'pushWindowMs'>
  },
): Promise<Publisher> {
  const { targets, openReadPath, ...rest } = deps
  const loaded = await loadKeysAtStart(targets, deps.config.pushSecret !== '')
  const { feed, lookup } = await openReadPath()
  const publisher = startPublisher({ ...rest, feed, lookup, loadKeys: () => targets.loadKeys() })
  deps.log.info({ targets: loaded.keys.size, windowMs: deps.config.pushWindowMs }, 'push publisher started')
  return publisher
}

/** Starts the publisher: follows `deps.feed` and publishes every PUSH_WINDOW_MS until closed. */
export function startPublisher(deps: PublisherDeps): Publisher {
  const run: Run = {
    deps,
    now: deps.now ?? Date.now,
    universes: new Map(),
    changed: new Map(),
    everything: true,
    keys: { keys: new Map(), unreadable: [] },
    keysAt: Number.NEGATIVE_INFINITY,
    reportedUnreadable: '',
  }
  const stopFeed = deps.feed.onChange((change) => {
    if (change.all) {
      run.everything = true
      return
    }
    const at = Number.isFinite(change.sentAt) ? change.sentAt : run.now()
    for (const code of change.codes) {
      const known = run.changed.get(code)
      if (known === undefined) run.changed.set(code, { since: at, count: 1 })
      else run.changed.set(code, { since: Math.min(known.since, at), count: known.count + 1 })
    }
  })
  // Changes published while the feed was down were lost: every block is compared again once it is back.
  const stopLive = deps.feed.onLive(() => {
    run.everything = true
  })
  deps.metrics?.state?.(() => ({ universes: [...run.universes.values()].filter((u) => u.lease.held).length, pending: [...run.universes.values()].reduce((n, u) => n + u.pending.size, 0) }))

  const abort = new AbortController()
  const loop = (async () => {
    while (!abort.signal.aborted) {
      const started = run.now()
      try {
        await publishWindow(run)
      } catch (err) {
        deps.log.warn({ err: (err as Error).message }, 'push window failed; retrying next window')
        run.everything = true
      }
      await abortableSleep(Math.max(0, deps.config.pushWindowMs - (run.now() - started)), abort.signal)
    }
  })()

  return {
    async close() {
      abort.abort()
      stopFeed()
      stopLive()
      await loop
      await Promise.all([...run.universes.values()].map((u) => u.lease.release()))
    },
  }
}

/** One window: the targets' keys when due, the universes with live subscriptions, and each one this process leads. */
async function publishWindow(run: Run): Promise<void> {
  const { deps } = run
  const changed = run.changed
  const everything = run.everything
  run.changed = new Map()
  run.everything = false
  const live = new Set(await deps.subscriptions.universes())
  const sinceKeys = run.now() - run.keysAt
  const keyMissing = [...live].some((u) => !run.keys.keys.has(u))
  if (sinceKeys >= KEYS_RELOAD_MS || (keyMissing && sinceKeys >= MISSING_KEY_RELOAD_MS)) await reloadKeys(run)
  for (const [universe, state] of run.universes) {
    if (live.has(universe)) continue
    run.universes.delete(universe)
    await state.lease.release()
  }
  await Promise.all(
    [...live].map(async (universe) => {
      let state = run.universes.get(universe)
      if (state === undefined) {
        state = { universe, lease: deps.openLease(universe), pending: createPendingChanges(), fullCheck: true, keyless: false, failures: 0, waitUntil: 0 }
        run.universes.set(universe, state)
      }
      if (everything) state.fullCheck = true
      if (!state.lease.held) {
        // Whoever takes the lease compares everything first: changes made while nobody led are published then.
        state.fullCheck = true
        if (!(await state.lease.acquire())) return
      }
      try {
        await publishUniverse(run, state, changed)
      } catch (err) {
        state.fullCheck = true
        deps.log.warn({ universe, err: (err as Error).message }, 'push to a universe failed; its blocks are compared again next window')
      }
    }),
  )
}

/** Reads the targets' keys again; unreadable ones are logged once per change (the key itself never is). */
async function reloadKeys(run: Run): Promise<void> {
  // The time the read began: a key stored while it ran may be missing from it.
  const at = run.now()
  run.keys = await run.deps.loadKeys()
  run.keysAt = at
  const summary = run.keys.unreadable.map((u) => `${u.keyName}/${u.universeId}`).join(',')
  if (summary !== run.reportedUnreadable) {
    run.reportedUnreadable = summary
    for (const u of run.keys.unreadable) run.deps.log.error({ key: u.keyName, universe: u.universeId }, `push target unusable: ${u.message}`)
  }
}

/** The changed blocks of one universe recorded as pending, then as many messages as its budget and backoff allow. */
async function publishUniverse(run: Run, state: UniverseState, changed: ReadonlyMap<string, Mention>): Promise<void> {
  const { deps } = run
  const { universe } = state
  const { subscriptions } = await deps.subscriptions.read(universe)
  const subs = summarize(subscriptions)
  state.pending.keepOnly(subs.codes)
  const key = run.keys.keys.get(universe)
  if (key === undefined) {
    // No usable Open Cloud key (not loaded yet, removed, its API key revoked, or unreadable): nothing can go out. The
    // blocks are still looked at, so a universe seen before its key loads gets its first look; once a key can be
    // used, every block is compared again and what changed meanwhile goes out.
    await notePending(run, state, subs, changed)
    const lost = state.pending.size
    if (lost > 0) deps.metrics?.dropped?.('no_target', lost)
    state.pending.settle(state.pending.list().map((p) => p.code))
    state.keyless = true
    return
  }
  if (state.keyless) {
    state.keyless = false
    state.fullCheck = true
  }
  await notePending(run, state, subs, changed)
  if (state.pending.size === 0 || run.now() < state.waitUntil) return
  const budget = universeBudgetPerMinute({ servers: subs.servers, players: subs.codes.size })
  const pending = state.pending.list()
  const since = new Map(pending.map((p) => [p.code, p.since]))
  const blocks = new Map(pending.map((p) => [p.code, p.block]))
  const messages = planMessages(pending).slice(0, MESSAGES_PER_WINDOW)
  for (const message of messages) {
    if (!(await deps.gates(universe, budget)).ok) return
    if (!(await sendMessage(run, state, key, message, since, blocks))) return
  }
}

/**
 * Renders the candidates (every subscribed code on a full check, else the changed ones) and records as pending each
 * block that differs from what servers were told. A code with no record that the feed did not name is one a server
 * just subscribed with: it read that block itself, so it is recorded as told without a message.
 */
async function notePending(run: Run, state: UniverseState, subs: UniverseSubscriptions, changed: ReadonlyMap<string, Mention>): Promise<void> {
  const { deps } = run
  const candidates = state.fullCheck ? [...subs.codes] : [...changed.keys()].filter((c) => subs.codes.has(c))
  if (candidates.length === 0) {
    state.fullCheck = false
    return
  }
  const [views, recorded] = await Promise.all([deps.lookup(candidates), deps.sent.get(state.universe, candidates)])
  const told = new Map<string, string>()
  const at = run.now()
  for (let i = 0; i < candidates.length; i++) {
    const code = candidates[i]!
    const block = renderCallbackBlock(code, views[i]!)
    const digest = blockDigest(block)
    if (recorded[i] === digest) {
      // Changed and changed back before it went out: servers already show this block.
      state.pending.settle([code])
      continue
    }
    if (recorded[i] === null && !changed.has(code)) {
      told.set(code, digest)
      continue
    }
    const mention = changed.get(code)
    // Changes of one code within a window, and a change merged into one still waiting, cost no message of their own.
    const merged = (mention === undefined ? 0 : mention.count - 1) + (state.pending.note(code, block, mention?.since ?? at) ? 1 : 0)
    if (merged > 0) deps.metrics?.coalesced?.(merged)
  }
  await deps.sent.set(state.universe, told, lifeMs(deps))
  state.fullCheck = false
}

function lifeMs(deps: PublisherDeps): number {
  return 2 * deps.config.pushSubscriptionSeconds * 1000
}

/** Publishes one message; true when it went out (the next may follow), false when this universe must wait. */
async function sendMessage(
  run: Run,
  state: UniverseState,
  key: UniverseKey,
  message: PlannedMessage,
  since: ReadonlyMap<string, number>,
  blocks: ReadonlyMap<string, string>,
): Promise<boolean> {
  const { deps } = run
  const { universe } = state
  const outcome = await deps.publish(universe, key.apiKey, message.message)
  const now = run.now()
  if (outcome.ok) {
    state.failures = 0
    deps.metrics?.published?.(message.kind)
    if (message.codes.length > 1) deps.metrics?.coalesced?.(message.codes.length - 1)
    const oldest = Math.min(...message.codes.map((c) => since.get(c) ?? now))
    deps.metrics?.lag?.(Math.max(0, now - oldest) / 1000)
    await deps.sent.set(universe, new Map(message.codes.map((c) => [c, blockDigest(blocks.get(c) ?? '')])), lifeMs(deps))
    state.pending.settle(message.codes)
    return true
  }
  const kind = refusalKind(outcome)
  deps.metrics?.failed?.(kind)
  if (kind === 'refused') {
    deps.metrics?.dropped?.('refused', message.codes.length)
    state.pending.settle(message.codes)
    const keyRefused = outcome.status === 401 || outcome.status === 403 || outcome.status === 404
    if (keyRefused) state.waitUntil = now + REFUSED_PAUSE_MS
    deps.log.error({ universe, key: key.keyName, kind: message.kind, codes: message.codes.length }, `Open Cloud refused a push: ${describeOutcome(outcome)}`)
    return !keyRefused
  }
  state.failures++
  const waitMs = retryDelayMs(state.failures, outcome.retryAfter, now)
  state.waitUntil = now + waitMs
  deps.log.warn({ universe, failures: state.failures, waitMs }, `Open Cloud push failed, retrying later: ${describeOutcome(outcome)}`)
  return false
}
