/**
 * The reconciler: compares MySQL with the Redis copies (`{p}:codes`, `{p}:holders`, `{p}:apikeys`) in the background
 * and repairs drift, compare-and-set on the row version (so several workers running it at once, and commands writing
 * meanwhile, are safe). Every `everyMs` (0.5 s) it re-checks the rows changed since its last pass (`changed_at`, the
 * database's clock, indexed); every `sweepEveryMs` (5 min) it sweeps everything: missing, older and extra entries.
 * It reads MySQL through mysql/copy-source.ts and Redis through redis/copy-store.ts; the comparisons are pure
 * (copies/model/copy-drift.ts).
 */
import type { Registry } from 'prom-client'
import type { VersionedCode } from '../codes/model/code-record.js'
import type { Logger } from '../lib/logger.js'
import { Metric } from '../metrics/metric-names.js'
import { counterOf } from '../metrics/registry.js'
import type { VersionedApiKey } from '../mysql/api-key-rows.js'
import type { CopySource } from '../mysql/copy-source.js'
import type { CopyStore } from '../redis/copy-store.js'
import { changesSince, COPIES, extraEntries, holderRepairs, outdatedRows, type CopyName } from './model/copy-drift.js'

/** Repairs made by one pass, by copy. */
export type Repairs = Record<CopyName, number>

/** Timing of the passes. */
export interface ReconcilerOptions {
  /** Interval of the incremental pass (rows changed since the last pass). */
  everyMs?: number
  /** Interval of the full sweep. */
  sweepEveryMs?: number
  /** How far before the last pass's start the next one reads changes (covers transactions committing late). */
  overlapMs?: number
}

/** A running reconciler. */
export interface Reconciler {
  /** One incremental pass now (a full sweep when none has completed yet). */
  pass(): Promise<Repairs>
  /** One full sweep now. */
  sweep(): Promise<Repairs>
  /** Stops the timers (a pass in flight finishes). */
  stop(): void
}

/** Dependencies: both sides of the copies (the worker's real database and Redis) and where to report. */
export interface ReconcilerDeps {
  source: CopySource
  store: CopyStore
  log: Logger
  metrics?: Registry
}

/** Default interval of the incremental pass. */
export const RECONCILE_EVERY_MS = 500
/** Default interval of the full sweep. */
export const SWEEP_EVERY_MS = 5 * 60_000
const OVERLAP_MS = 5000
const PAGE = 1000
const CHANGES_LIMIT = 5000

const none = (): Repairs => ({ codes: 0, holders: 0, apikeys: 0 })

/** Creates the reconciler and starts its timers (unref'd). */
export function startReconciler(deps: ReconcilerDeps, options: ReconcilerOptions = {}): Reconciler {
  const { source, store, log } = deps
  const everyMs = options.everyMs ?? RECONCILE_EVERY_MS
  const sweepEveryMs = options.sweepEveryMs ?? SWEEP_EVERY_MS
  const overlapMs = options.overlapMs ?? OVERLAP_MS
  const counter = deps.metrics === undefined ? undefined : counterOf(deps.metrics, Metric.reconcilerRepairs)
  if (counter !== undefined) for (const c of COPIES) counter.inc({ copy: c }, 0)

  let lastPassStart: Date | null = null
  let lastSweepAt = 0
  let running: Promise<Repairs> | null = null

  /** Copies the outdated ones among `rows`, then repairs the holder entries of their users. */
  const checkCodes = async (rows: readonly VersionedCode[], repairs: Repairs): Promise<void> => {
    if (rows.length === 0) return
    repairs.codes += await store.codes.putMany(outdatedRows(rows, await store.codeVersions(rows.map((r) => r.code))))
    await checkHolders([...new Set(rows.map((r) => r.chatUserId))], repairs)
  }

  const checkHolders = async (users: readonly string[], repairs: Repairs): Promise<void> => {
    if (users.length === 0) return
    const [stored, live] = await Promise.all([store.holders(users), source.liveCodesOfUsers(users)])
    for (const { userId, code } of holderRepairs(users, live, stored)) repairs.holders += await store.repairHolder(userId, code)
  }

  const checkKeys = async (rows: readonly VersionedApiKey[], repairs: Repairs): Promise<void> => {
    if (rows.length === 0) return
    repairs.apikeys += await store.putApiKeys(outdatedRows(rows, await store.apiKeyVersions(rows.map((k) => k.id))))
  }

  const count = (repairs: Repairs, what: string): Repairs => {
    for (const c of COPIES) if (repairs[c] > 0) counter?.inc({ copy: c }, repairs[c])
    if (repairs.codes + repairs.holders + repairs.apikeys > 0) log.warn({ ...repairs }, `reconciler repaired Redis copies (${what})`)
    return repairs
  }

  // Entries MySQL does not have are removed only while they still hold the value seen.
  const sweepNow = async (): Promise<Repairs> => {
    const start = await source.now()
    const repairs = none()
    for await (const page of source.allCodes(PAGE)) await checkCodes(page, repairs)
    for await (const seen of store.codePages(PAGE)) {
      const existing = new Set((await source.findCodes([...seen.keys()])).map((r) => r.code))
      for (const code of extraEntries([...seen.keys()], existing)) repairs.codes += await store.removeCode(code, seen.get(code)!)
    }
    for await (const users of store.holderPages(PAGE)) await checkHolders(users, repairs)
    await checkKeys(await source.allApiKeys(), repairs)
    for await (const seen of store.apiKeyPages(PAGE)) {
      const existing = new Set((await source.findApiKeys([...seen.keys()])).map((k) => k.id))
      for (const id of extraEntries([...seen.keys()], existing)) repairs.apikeys += await store.removeApiKey(id, seen.get(id)!)
    }
    lastPassStart = start
    lastSweepAt = Date.now()
    return count(repairs, 'full sweep')
  }

  const passNow = async (): Promise<Repairs> => {
    if (lastPassStart === null || Date.now() - lastSweepAt >= sweepEveryMs) return sweepNow()
    const start = await source.now()
    const since = changesSince(lastPassStart, overlapMs)
    const repairs = none()
    const codes = await source.codesChangedSince(since, CHANGES_LIMIT)
    for (let i = 0; i < codes.length; i += PAGE) await checkCodes(codes.slice(i, i + PAGE), repairs)
    const changedKeys = await source.apiKeysChangedSince(since, CHANGES_LIMIT)
    await checkKeys(changedKeys, repairs)
    // More changes than one pass reads (a burst, or a long outage): the next pass sweeps everything.
    if (codes.length === CHANGES_LIMIT || changedKeys.length === CHANGES_LIMIT) lastSweepAt = 0
    lastPassStart = start
    return count(repairs, 'recent changes')
  }

  // One pass at a time per process: a timer tick during a slow sweep waits for the next tick.
  const exclusive = (run: () => Promise<Repairs>) => async (): Promise<Repairs> => {
    while (running !== null) await running.catch(() => undefined)
    running = run()
    try {
      return await running
    } finally {
      running = null
    }
  }
  const pass = exclusive(passNow)
  const sweep = exclusive(sweepNow)

  let failing = false
  const timer = setInterval(() => {
    if (running !== null) return
    pass()
      .then(() => {
        if (failing) log.info('reconciler passes succeed again')
        failing = false
      })
      .catch((err: Error) => {
        if (!failing) log.warn({ err: err.message }, 'reconciler pass failed; retrying every second')
        failing = true
      })
  }, everyMs)
  timer.unref()
  return { pass, sweep, stop: () => clearInterval(timer) }
}
