/**
 * Per-client rate limits (IPv4 address, IPv6 /64) counted in Redis, so every front process and machine shares one
 * budget per client and route. The front receives only the check function.
 *
 * No request waits for a round trip of its own. A front answers alone what it knows (model/rate-limit-windows.ts):
 * a client that has spent its budget is refused until its window ends, and a client for whom it holds a spare (one
 * point already counted in Redis) is answered at once, the spare spent and a new one asked for. Every other request
 * is counted in Redis with the others that arrive while the front's previous batch is on its way (or within one
 * event-loop turn when none is), in one call of scripts/rate-limit-spend.lua, in arrival order, with the spares asked
 * for meanwhile. So no front answers more than the budget, and a client whose requests come one at a time, through
 * one front or in turn through several, is refused at exactly its 101st request. A batch that fails fails each of
 * its requests (spares asked for are simply not granted); a key that cannot be counted fails only its own request;
 * while the connection is not ready a request fails at once, without waiting for a batch on its way.
 * A caller that remembers its clients passes each one's `WindowSlots`: the windows learnt for it are kept there too,
 * so its next request is answered without looking it up among every client's windows.
 */
import { performance } from 'node:perf_hooks'
import type { Redis } from 'ioredis'
import type { RateLimits } from '../config.js'
import type { RedisKeys } from './keys.js'
import { luaCommand, type LuaCommand } from './lua-scripts.js'
import {
  afterCount,
  afterSpare,
  answerLocally,
  createWindowTable,
  outcomeOf,
  refusal,
  spareCeiling,
  wantsSpare,
  type KnownWindow,
  type RateLimitOutcome,
  type WindowTable,
} from './model/rate-limit-windows.js'

export type { RateLimitOutcome, RateLimitState } from './model/rate-limit-windows.js'

/** The limited routes (and the events budget, whose points are events rather than requests: createUnitBudget). */
export type LimitedRoute = keyof RateLimits

/**
 * Where a caller keeps one client's windows between its requests (the front keeps one per remembered client): the
 * limiter puts each window it learns for that client there, so the client's next request finds it without a lookup
 * in the table of every client's windows (a Map of up to REMEMBERED_WINDOWS keys, and a fresh key string each time).
 * It holds the same window objects as the table, and a window in it is used only while it has not ended.
 */
export type WindowSlots = { [route in LimitedRoute]?: KnownWindow }

/**
 * Spends one point of `route` for `client` (an IPv4 address or an IPv6 /64, http/model/client-key.ts), with the
 * client's `slots` when the caller keeps them; throws only when Redis fails.
 */
export type RateLimitCheck = (route: LimitedRoute, client: string, slots?: WindowSlots) => Promise<RateLimitOutcome>

/** Client windows one front process remembers (about 150 bytes each): past it the oldest are forgotten. */
export const REMEMBERED_WINDOWS = 50_000

/** Most operations in one script call: a larger backlog goes in several calls at once (each call blocks Redis while it runs). */
export const MAX_BATCH = 500

/**
 * Most ms asks for spares wait for a request to share a script call with: under load nearly every answered request
 * asks for one, and a call per turn for them alone costs the front and Redis a socket write and a wake-up each. A
 * client's next request comes far later than this (100 per 10 s at most), so its spare is still ready for it.
 */
export const SPARE_LINGER_MS = 5

/** Options of a limiter (the defaults are the service's). */
export interface RateLimiterOptions {
  /** Client windows remembered (REMEMBERED_WINDOWS). */
  rememberedWindows?: number
  /** Most operations per script call (MAX_BATCH). */
  maxBatch?: number
  /** Takes spares (true); false counts every request in Redis. */
  spares?: boolean
}

/** A limiter: the check, and the size of its table of known windows. */
export interface RateLimiter {
  check: RateLimitCheck
  /** Client windows this process remembers now. */
  remembered(): number
}

/** One operation of a batch: a request to count (with its waiter), or a spare asked for `window`. */
interface Op {
  key: string
  route: LimitedRoute
  /** The window as the front knew it when the operation arose (the script then skips PTTL). */
  known: KnownWindow | undefined
  /** The request's waiter; absent for a spare. */
  waiter?: { resolve(outcome: RateLimitOutcome): void; reject(err: unknown): void }
  /** A queued request answered from a spare that arrived before the request was sent. */
  done?: boolean
  /** The client's slots, for the window its count teaches (a request's). */
  slots?: WindowSlots
}

/** A window as the limiter holds it: with its count key, so a request found through the client's slots needs no key built. */
interface HeldWindow extends KnownWindow {
  key: string
}

/** Creates the checker; `limits` null means rate limiting is off (benchmarks). */
export function createRateLimits(redis: Redis, keys: RedisKeys, limits: RateLimits | null): RateLimitCheck {
  if (limits === null) return async () => ({ ok: true })
  return createRateLimiter(redis, keys, limits).check
}

/** Creates a limiter over `redis` for `limits`. */
export function createRateLimiter(redis: Redis, keys: RedisKeys, limits: RateLimits, options: RateLimiterOptions = {}): RateLimiter {
  const table = createWindowTable(options.rememberedWindows ?? REMEMBERED_WINDOWS)
  const spares = options.spares !== false
  const send = sendBatch(luaCommand(redis, 'rate-limit-spend'), table, limits)
  const maxBatch = Math.max(1, options.maxBatch ?? MAX_BATCH)
  const prefixes = new Map<LimitedRoute, string>()
  for (const route of Object.keys(limits) as LimitedRoute[]) prefixes.set(route, `${keys.rateLimitPrefix(route)}:`)

  let requests: Op[] = []
  let spareAsks: Op[] = []
  // The first queued (not yet sent) request of each client: a spare that arrives for it answers it instead.
  let queuedByKey = new Map<string, Op>()
  let scheduled = false
  let onTheWay = false
  let lingering: NodeJS.Timeout | undefined
  const flush = () => {
    scheduled = false
    if (lingering !== undefined) clearTimeout(lingering)
    lingering = undefined
    if (requests.length === 0 && spareAsks.length === 0) return
    const batch = batchOf(requests, spareAsks)
    requests = []
    spareAsks = []
    queuedByKey = new Map()
    onTheWay = true
    const calls: Array<Promise<void>> = []
    for (let i = 0; i < batch.length; i += maxBatch) calls.push(send(batch.slice(i, i + maxBatch), { afterAnswer, spareArrived }))
    // What arises meanwhile waits for this batch, then goes together: one call per round trip, however busy.
    void Promise.all(calls).then(() => {
      onTheWay = false
      schedule()
    })
  }
  // A request waits for its count, so it goes at the next turn; spares alone wait up to SPARE_LINGER_MS for company
  // (nothing waits for them, and each script call costs both sides a socket write and a wake-up).
  const schedule = () => {
    if (scheduled || onTheWay) return
    if (requests.length > 0 || spareAsks.length >= maxBatch) {
      scheduled = true
      setImmediate(flush)
    } else if (spareAsks.length > 0 && lingering === undefined) {
      lingering = setTimeout(flush, SPARE_LINGER_MS)
    }
  }
  // After an answered request: ask for a spare, so the client's next request here is answered at once.
  const afterAnswer = (key: string, route: LimitedRoute, window: KnownWindow) => {
    if (!spares || !wantsSpare(window, limits[route]) || redis.status !== 'ready') return
    window.refilling = true
    spareAsks.push({ key, route, known: window })
    schedule()
  }
  // A spare granted while a request of that client waits for the next batch answers that request: counting the
  // request too would leave the spare unspent when the client's next request goes to another front.
  const spareArrived = (op: Op, window: KnownWindow) => {
    const waiting = queuedByKey.get(op.key)
    if (waiting === undefined || waiting.known !== window) return
    queuedByKey.delete(op.key)
    waiting.done = true
    const outcome = answerLocally(window, limits[op.route], performance.now())!
    waiting.waiter!.resolve(outcome)
    afterAnswer(op.key, op.route, window)
  }

  const check: RateLimitCheck = (route, client, slots) => {
    const now = performance.now()
    let known: KnownWindow | undefined = slots?.[route]
    let key: string
    if (known !== undefined && known.endsAt > now) key = (known as HeldWindow).key
    else {
      key = prefixes.get(route)! + client
      known = table.get(key, now)
      if (slots !== undefined) slots[route] = known
    }
    if (known !== undefined) {
      const local = answerLocally(known, limits[route], now)
      if (local !== undefined) {
        if (local.ok) afterAnswer(key, route, known)
        return Promise.resolve(local)
      }
    }
    return new Promise<RateLimitOutcome>((resolve, reject) => {
      const op: Op = { key, route, known, waiter: { resolve, reject }, slots }
      // Fail fast as before: while Redis is not ready, ioredis refuses the call at once (no batch to wait behind).
      if (redis.status !== 'ready') return void send([op], { afterAnswer, spareArrived })
      requests.push(op)
      if (!queuedByKey.has(key)) queuedByKey.set(key, op)
      schedule()
    })
  }
  return { check, remembered: () => table.size }
}

/**
 * The operations of one batch: the requests in arrival order, then the spares asked for clients with no request in
 * it (a spare taken beside a request of the same client would wait unspent while that request is counted).
 */
function batchOf(requests: readonly Op[], spareAsks: readonly Op[]): Op[] {
  const batch = requests.filter((op) => op.done !== true)
  if (spareAsks.length === 0) return batch
  const asking = new Set<string>()
  for (const op of batch) asking.add(op.key)
  for (const op of spareAsks) {
    if (asking.has(op.key)) op.known!.refilling = false
    else batch.push(op)
  }
  return batch
}

/** What the limiter does as answers arrive: ask for the next spare, and give a spare to a request waiting for it. */
interface Followers {
  afterAnswer(key: string, route: LimitedRoute, window: KnownWindow): void
  spareArrived(op: Op, window: KnownWindow): void
}

/** Sends one batch and settles each of its operations; never rejects. */
function sendBatch(spend: LuaCommand, table: WindowTable, limits: RateLimits): (batch: readonly Op[], next: Followers) => Promise<void> {
  return async (batch, next) => {
    const sentAt = performance.now()
    const args: number[] = []
    for (const op of batch) {
      const windowMs = limits[op.route].seconds * 1000
      args.push(op.known === undefined ? windowMs : -windowMs, op.waiter === undefined ? spareCeiling(limits[op.route]) : 0)
    }
    let reply: unknown[]
    try {
      reply = (await spend(batch.map((op) => op.key), args)) as unknown[]
    } catch (err) {
      for (const op of batch) {
        if (op.waiter !== undefined) op.waiter.reject(err)
        else op.known!.refilling = false
      }
      return
    }
    const now = performance.now()
    // Spares are asked for once the whole batch is read, so they see each client's last count.
    const answered = new Map<string, { route: LimitedRoute; window: KnownWindow }>()
    for (let i = 0; i < batch.length; i++) {
      const op = batch[i]!
      const count = reply[2 * i] as number
      const left = reply[2 * i + 1] as number | string
      if (op.waiter === undefined) {
        afterSpare(op.known!, typeof left === 'string' ? 0 : count, limits[op.route])
        if (op.known!.spare > 0) next.spareArrived(op, op.known!)
        continue
      }
      if (typeof left === 'string') {
        op.waiter.reject(new Error(left))
        continue
      }
      const current = table.get(op.key, now)
      const window = afterCount(current, op.known, count, left, sentAt) as HeldWindow
      if (window !== current) {
        window.key = op.key
        table.set(op.key, window)
      }
      if (op.slots !== undefined) op.slots[op.route] = window
      const outcome = outcomeOf(limits[op.route], count, window.endsAt - now)
      op.waiter.resolve(outcome)
      if (outcome.ok) answered.set(op.key, { route: op.route, window })
    }
    for (const [key, { route, window }] of answered) next.afterAnswer(key, route, window)
  }
}

/** The budgets counted in units rather than requests (one unit per log event of a batch). */
export type UnitBudget = 'log_events'

/**
 * Spends `units` points of `budget` for `client` at once, all or none: a refusal spends nothing. Resolves `{ok: true}`
 * when limits are off; throws only when Redis fails. The caller refuses a spend larger than the whole budget itself
 * (it could never succeed).
 */
export type UnitBudgetSpend = (budget: UnitBudget, client: string, units: number) => Promise<RateLimitOutcome>

/** Creates the spender of unit budgets; `limits` null means rate limiting is off. One round trip per spend. */
export function createUnitBudget(redis: Redis, keys: RedisKeys, limits: RateLimits | null): UnitBudgetSpend {
  if (limits === null) return async () => ({ ok: true })
  const spend = luaCommand(redis, 'rate-limit-spend-units')
  return async (budget, client, units) => {
    const { points, seconds } = limits[budget]
    const reply = (await spend([`${keys.rateLimitPrefix(budget)}:${client}`], [units, points, seconds * 1000])) as [number, number, number]
    const [spent, used, msLeft] = reply
    if (spent === 1) return outcomeOf({ points, seconds }, used, msLeft)
    return refusal({ points, seconds }, Math.max(0, msLeft))
  }
}
