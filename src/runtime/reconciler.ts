/**
 * The reconciler: compares MySQL with the Redis copies (`{p}:codes`, `{p}:holders`, `{p}:apikeys`) in the background
 * and repairs drift, compare-and-set on the row version (so several workers running it at once, and commands writing
 * meanwhile, are safe). Every `everyMs` (0.5 s) it re-checks the rows changed since its last pass (`changed_at`, the
 * database's clock, indexed); every `sweepEveryMs` (5 min) it sweeps everything: missing, older and extra entries.
 * The pure comparisons are in core/copy-drift.ts.
 */
import type { Redis } from 'ioredis'
import { sql, type Kysely } from 'kysely'
import type { Registry } from 'prom-client'
import { decodeCachedCode, type VersionedCode } from '../core/code-record.js'
import { changesSince, COPIES, extraEntries, holderRepairs, outdatedRows, type CopyName } from '../core/copy-drift.js'
import { encodeFeedCodes } from '../core/feed-message.js'
import type { Logger } from '../lib/logger.js'
import { Metric } from '../metrics/metric-names.js'
import { counterOf } from '../metrics/registry.js'
import { createApiKeyRows, type VersionedApiKey } from '../mysql/api-key-rows.js'
import { findCodes, findLiveCodesOfUsers, listAllCodes, listCodesChangedSince } from '../mysql/code-rows.js'
import type { Database } from '../mysql/schema.js'
import { createApiKeyCopy, decodeCopiedApiKey } from '../redis/api-key-copy.js'
import { createCodeCache } from '../redis/code-cache.js'
import type { RedisKeys } from '../redis/keys.js'
import { luaCommand } from '../redis/lua-scripts.js'

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

/** Dependencies: the real database and Redis connection of the worker. */
export interface ReconcilerDeps {
  db: Kysely<Database>
  redis: Redis
  keys: RedisKeys
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
  const { db, redis, keys, log } = deps
  const everyMs = options.everyMs ?? RECONCILE_EVERY_MS
  const sweepEveryMs = options.sweepEveryMs ?? SWEEP_EVERY_MS
  const overlapMs = options.overlapMs ?? OVERLAP_MS
  const cache = createCodeCache(redis, keys)
  const copy = createApiKeyCopy(redis, keys)
  const keyRows = createApiKeyRows(db)
  const repairHolder = luaCommand(redis, 'holder-repair')
  const removeCode = luaCommand(redis, 'code-remove')
  const deleteIf = luaCommand(redis, 'hash-delete-if')
  const counter = deps.metrics === undefined ? undefined : counterOf(deps.metrics, Metric.reconcilerRepairs)
  if (counter !== undefined) for (const c of COPIES) counter.inc({ copy: c }, 0)

  let lastPassStart: Date | null = null
  let lastSweepAt = 0
  let running: Promise<Repairs> | null = null

  const dbNow = async (): Promise<Date> => {
    const { rows } = await sql<{ now: Date }>`SELECT NOW(3) AS now`.execute(db)
    return rows[0]!.now
  }

  const codeVersions = async (codes: readonly string[]): Promise<Array<number | undefined>> => {
    if (codes.length === 0) return []
    return (await redis.hmget(keys.codes, ...codes)).map((v) => (v == null ? undefined : decodeCachedCode(v)?.version))
  }

  /** Copies the outdated ones among `rows`, then repairs the holder entries of their users. */
  const checkCodes = async (rows: readonly VersionedCode[], repairs: Repairs): Promise<void> => {
    if (rows.length === 0) return
    repairs.codes += await cache.putMany(outdatedRows(rows, await codeVersions(rows.map((r) => r.code))))
    await checkHolders([...new Set(rows.map((r) => r.chatUserId))], repairs)
  }

  const checkHolders = async (users: readonly string[], repairs: Repairs): Promise<void> => {
    if (users.length === 0) return
    const stored = new Map<string, string>()
    const values = await redis.hmget(keys.holders, ...users)
    users.forEach((u, i) => {
      const v = values[i]
      if (v != null) stored.set(u, v)
    })
    const live = await findLiveCodesOfUsers(db, users)
    for (const { userId, code } of holderRepairs(users, live, stored)) {
      repairs.holders += Number(await repairHolder([keys.codes, keys.holders], [userId, code]))
    }
  }

  const checkKeys = async (rows: readonly VersionedApiKey[], repairs: Repairs): Promise<void> => {
    if (rows.length === 0) return
    const values = await redis.hmget(keys.apiKeys, ...rows.map((k) => k.id))
    const stored = values.map((v) => (v == null ? undefined : decodeCopiedApiKey(v).version))
    repairs.apikeys += await copy.putMany(outdatedRows(rows, stored))
  }

  const count = (repairs: Repairs, what: string): Repairs => {
    for (const c of COPIES) if (repairs[c] > 0) counter?.inc({ copy: c }, repairs[c])
    if (repairs.codes + repairs.holders + repairs.apikeys > 0) log.warn({ ...repairs }, `reconciler repaired Redis copies (${what})`)
    return repairs
  }

  const sweepNow = async (): Promise<Repairs> => {
    const start = await dbNow()
    const repairs = none()
    for await (const page of listAllCodes(db, PAGE)) await checkCodes(page, repairs)
    // Entries MySQL does not have: removed only while they still hold the value seen.
    let cursor = '0'
    do {
      const [next, flat] = await redis.hscan(keys.codes, cursor, 'COUNT', PAGE)
      cursor = next
      const seen = new Map<string, string>()
      for (let i = 0; i < flat.length; i += 2) seen.set(flat[i]!, flat[i + 1]!)
      const existing = new Set((await findCodes(db, [...seen.keys()])).map((r) => r.code))
      for (const code of extraEntries([...seen.keys()], existing)) {
        const value = seen.get(code)!
        const user = decodeCachedCode(value)?.chatUserId ?? ''
        repairs.codes += Number(await removeCode([keys.codes, keys.holders, keys.presence], [keys.feed, encodeFeedCodes([code], Date.now()), code, value, user]))
      }
    } while (cursor !== '0')
    cursor = '0'
    do {
      const [next, flat] = await redis.hscan(keys.holders, cursor, 'COUNT', PAGE)
      cursor = next
      const users: string[] = []
      for (let i = 0; i < flat.length; i += 2) users.push(flat[i]!)
      await checkHolders(users, repairs)
    } while (cursor !== '0')
    await checkKeys(await keyRows.listAll(), repairs)
    cursor = '0'
    do {
      const [next, flat] = await redis.hscan(keys.apiKeys, cursor, 'COUNT', PAGE)
      cursor = next
      const seen = new Map<string, string>()
      for (let i = 0; i < flat.length; i += 2) seen.set(flat[i]!, flat[i + 1]!)
      const existing = new Set((await keyRows.findByIds([...seen.keys()])).map((k) => k.id))
      for (const id of extraEntries([...seen.keys()], existing)) repairs.apikeys += Number(await deleteIf([keys.apiKeys], [id, seen.get(id)!]))
    } while (cursor !== '0')
    lastPassStart = start
    lastSweepAt = Date.now()
    return count(repairs, 'full sweep')
  }

  const passNow = async (): Promise<Repairs> => {
    if (lastPassStart === null || Date.now() - lastSweepAt >= sweepEveryMs) return sweepNow()
    const start = await dbNow()
    const since = changesSince(lastPassStart, overlapMs)
    const repairs = none()
    const codes = await listCodesChangedSince(db, since, CHANGES_LIMIT)
    for (let i = 0; i < codes.length; i += PAGE) await checkCodes(codes.slice(i, i + PAGE), repairs)
    const changedKeys = await keyRows.listChangedSince(since, CHANGES_LIMIT)
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
