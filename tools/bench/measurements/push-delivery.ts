/**
 * Push delivery through the real pipeline: a sandbox in this process (the fake Discord, and the fake Open Cloud that
 * stamps each message it accepts with this process's clock), a scratch world, and real `presence-link front`,
 * `gateway` and `worker push` processes.
 *
 * - latency: the sandbox sends a PRESENCE_UPDATE for a linked user (real gateway, Redis, change feed, publisher), and
 *   the clock stops when the fake Open Cloud accepts the message carrying that user's new block. The baseline, in the
 *   same run and for the same changes, is the change feed: when the gateway's write was announced on `{p}:feed` (what
 *   every front's near cache and stream follows).
 * - volume: PLAYERS linked codes subscribed by SERVERS servers of one universe, each code's presence written (the
 *   gateway's write, with its feed message) once every CHANGE_EVERY_S at a random moment, for MINUTES minutes: the
 *   messages per minute the universe received, their kinds, and the time from each write to the message carrying it.
 */
import { performance } from 'node:perf_hooks'
import { createRedis } from '../../../src/redis/connection.js'
import { createCodeCache } from '../../../src/redis/code-cache.js'
import { createPresenceStore } from '../../../src/redis/presence-store.js'
import { buildCodeService, buildPushTargets } from '../../../src/runtime/services.js'
import { startProcess, type BenchProcess } from '../../harness/processes.js'
import { sleep, waitFor, waitForFront } from '../../harness/readiness.js'
import { control, startSandbox, type Sandbox } from '../../harness/sandbox.js'
import { createScratch, type Scratch } from '../../harness/scratch.js'
import { median, percentile } from '../../harness/stats.js'

const SECRET = 'bench-push-secret-0123456789abcdefghijkl'
const OPEN_CLOUD_KEY = 'bench-open-cloud-key-0123456789'

/** One accepted message of the fake. */
interface FakeMessage {
  seq: number
  message: string
  at: string
}

/** Latency figures, in milliseconds. */
export interface PushLatency {
  updates: number
  windowMs: number
  /** Sandbox PRESENCE_UPDATE to the fake Open Cloud accepting the message. */
  p50Ms: number
  p99Ms: number
  maxMs: number
  /** The baseline: sandbox PRESENCE_UPDATE to the change feed message. */
  feedP50Ms: number
  feedP99Ms: number
  /** Change feed to the fake Open Cloud: the publisher's own part, window included. */
  publisherP50Ms: number
  publisherP99Ms: number
}

/** Volume figures. */
export interface PushVolume {
  players: number
  servers: number
  changeEverySeconds: number
  minutes: number
  changes: number
  /** Messages the universe received in each whole minute. */
  perMinute: number[]
  blocksMessages: number
  codesMessages: number
  /** The universe's budget a minute (push/model/publish-budget.ts) for these servers and players. */
  budgetPerMinute: number
  /** Write to the message carrying it, ms. */
  p50Ms: number
  p99Ms: number
  /** Changes never seen in a message by the end (should be 0). */
  missing: number
}

interface PushWorld {
  sandbox: Sandbox
  scratch: Scratch
  children: BenchProcess[]
  remove(): Promise<void>
}

async function createPushWorld(stem: string, windowMs: number): Promise<PushWorld> {
  const sandbox = await startSandbox(0)
  const scratch = await createScratch({
    stem,
    poolSize: 4,
    env: {
      DISCORD_TOKEN: 'sandbox-token',
      DISCORD_API: sandbox.apiBase,
      ROBLOX_USERS_API: sandbox.robloxBase,
      OPEN_CLOUD_API: `${sandbox.url}/open-cloud`,
      PUSH_SECRET: SECRET,
      PUSH_WINDOW_MS: String(windowMs),
      LOG_LEVEL: 'info',
    },
  }).catch(async (err: unknown) => {
    await sandbox.close()
    throw err
  })
  const children: BenchProcess[] = []
  return {
    sandbox,
    scratch,
    children,
    async remove() {
      await Promise.all(children.map((c) => c.stop()))
      await sandbox.close()
      await scratch.remove()
    },
  }
}

async function attach(world: PushWorld, universe: number): Promise<void> {
  const added = await buildPushTargets(world.scratch.db, SECRET, `${world.sandbox.url}/open-cloud`).add('bench', universe, OPEN_CLOUD_KEY, 'bench')
  if (!added.ok) throw new Error(`push add: ${added.reason}`)
  await control(world.sandbox, 'POST', 'open-cloud', { keys: { [String(universe)]: OPEN_CLOUD_KEY } })
}

async function apiKey(world: PushWorld): Promise<string> {
  const { buildApiKeyService } = await import('../../../src/runtime/services.js')
  const made = await buildApiKeyService(world.scratch.db, world.scratch.redis, world.scratch.ctx.keys).create('bench')
  if (!made.ok) throw new Error('could not create the bench key')
  return made.key
}

async function subscribe(world: PushWorld, key: string, universe: number, serverId: string, codes: readonly string[]): Promise<void> {
  const res = await fetch(`${world.scratch.api}/push/subscriptions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ universe_id: universe, server_id: serverId, codes }),
  })
  if (res.status !== 200) throw new Error(`subscribe: ${res.status} ${await res.text()}`)
}

/** How often the bench renews its subscriptions, as the module does with its reconcile poll (they lapse after 120 s). */
const RENEW_EVERY_MS = 30_000

/** Subscribes each server, then renews them every RENEW_EVERY_MS until the returned stop is called. */
async function keepSubscribed(world: PushWorld, key: string, universe: number, servers: ReadonlyArray<readonly [string, readonly string[]]>): Promise<() => void> {
  for (const [serverId, codes] of servers) await subscribe(world, key, universe, serverId, codes)
  let renewing = Promise.resolve()
  const timer = setInterval(() => {
    renewing = renewing.then(async () => {
      for (const [serverId, codes] of servers) await subscribe(world, key, universe, serverId, codes)
    })
  }, RENEW_EVERY_MS)
  return () => clearInterval(timer)
}

async function messages(world: PushWorld, universe: number, after = 0): Promise<FakeMessage[]> {
  return (await control<{ messages: FakeMessage[] }>(world.sandbox, 'GET', `open-cloud/messages?universe_id=${universe}&after=${after}`)).messages
}

async function startParts(world: PushWorld, withGateway: boolean): Promise<void> {
  const env = world.scratch.env
  const front = startProcess({ name: 'front', script: 'src/front.js', env })
  world.children.push(front)
  await waitForFront(world.scratch.port, 60_000)
  const worker = startProcess({ name: 'worker', script: 'workers/worker.js', args: ['push'], env })
  world.children.push(worker)
  await worker.waitForLine(/worker ready/, 60_000)
  if (withGateway) {
    const gateway = startProcess({ name: 'gateway', script: 'src/gateway.js', env })
    world.children.push(gateway)
    await gateway.waitForLine(/presence resync done/, 60_000)
  }
}

/** Subscribes to the change feed and resolves each waiter when a message names its code. */
function watchFeed(url: string, channel: string): { next(code: string): Promise<number>; close(): Promise<void> } {
  const sub = createRedis(url, 'worker', 'bench:push-feed')
  const waiting = new Map<string, (at: number) => void>()
  sub.on('message', (_channel: string, message: string) => {
    const at = Date.now()
    const codes = message.slice(message.indexOf('|') + 1).split(',')
    for (const code of codes) {
      const resolve = waiting.get(code)
      if (resolve !== undefined) {
        waiting.delete(code)
        resolve(at)
      }
    }
  })
  void sub.subscribe(channel)
  return {
    next: (code) => new Promise<number>((resolve) => waiting.set(code, resolve)),
    close: async () => {
      await sub.quit()
    },
  }
}

/** Latency over `updates` presence changes of one linked user, spread over the window's phases. */
export async function measurePushLatency(updates: number, windowMs: number, log: (m: string) => void): Promise<PushLatency> {
  const world = await createPushWorld('pushlat', windowMs)
  const universe = 7001
  const feed = watchFeed(world.scratch.config.redisUrl, world.scratch.ctx.keys.feed)
  let stopRenewing = () => {}
  try {
    const codes = buildCodeService(world.scratch.db, createCodeCache(world.scratch.redis, world.scratch.ctx.keys))
    const user = '900000000000000001'
    await control(world.sandbox, 'POST', 'members', { id: user, username: 'bench' })
    const { code } = await codes.issue(user)
    await codes.bind(code.code, { platformUserId: '1', platformUsername: 'Bench_User' }, { source: 'bench' })
    // Twenty linked players in the server, so the universe's budget (50 + 5 × players) is not what is measured.
    const others: string[] = []
    for (let i = 0; i < 19; i++) {
      const issued = await codes.issue(String(900000000000001000n + BigInt(i)))
      await codes.bind(issued.code.code, { platformUserId: String(1000 + i), platformUsername: `Other_${i}` }, { source: 'bench' })
      others.push(issued.code.code)
    }
    const key = await apiKey(world)
    await attach(world, universe)
    await startParts(world, true)
    stopRenewing = await keepSubscribed(world, key, universe, [['bench-server', [code.code, ...others]]])
    await waitFor('the publisher to look at the universe', async () => (await world.scratch.redis.hlen(world.scratch.ctx.keys.pushSent(universe))) >= 20, 30_000)
    const total: number[] = []
    const toFeed: number[] = []
    const publisher: number[] = []
    let seen = (await messages(world, universe)).length
    for (let i = 0; i < updates; i++) {
      // A random pause (1.1-2.1 s) so changes land at every phase of the window and stay inside the budget.
      await sleep(1100 + Math.random() * 1000)
      const marker = `Bench Game ${i}`
      const fed = feed.next(code.code)
      const started = Date.now()
      await control(world.sandbox, 'POST', 'presence', { user_id: user, status: 'online', activities: [{ type: 0, name: marker }] })
      const feedAt = await fed
      let found: FakeMessage | undefined
      const until = performance.now() + 15_000
      while (found === undefined) {
        const fresh = await messages(world, universe, seen)
        found = fresh.find((m) => m.message.includes(`${marker};`))
        if (fresh.length > 0) seen = fresh[fresh.length - 1]!.seq
        if (found === undefined) {
          if (performance.now() > until) throw new Error(`update ${i} not published within 15 s`)
          await sleep(20)
        }
      }
      const at = Date.parse(found.at)
      total.push(at - started)
      toFeed.push(feedAt - started)
      publisher.push(at - feedAt)
      if ((i + 1) % 25 === 0) log(`latency: ${i + 1}/${updates} changes, p50 so far ${median(total).toFixed(0)} ms`)
    }
    return {
      updates,
      windowMs,
      p50Ms: median(total),
      p99Ms: percentile(total, 99),
      maxMs: Math.max(...total),
      feedP50Ms: median(toFeed),
      feedP99Ms: percentile(toFeed, 99),
      publisherP50Ms: median(publisher),
      publisherP99Ms: percentile(publisher, 99),
    }
  } finally {
    stopRenewing()
    await feed.close()
    await world.remove()
  }
}

/** Messages per minute of one universe with `players` subscribed players in `servers` servers, each changing every `changeEverySeconds`. */
export async function measurePushVolume(
  shape: { players: number; servers: number; changeEverySeconds: number; minutes: number; windowMs: number },
  log: (m: string) => void,
): Promise<PushVolume> {
  const world = await createPushWorld('pushvol', shape.windowMs)
  const universe = 7002
  let stopRenewing = () => {}
  try {
    const codeService = buildCodeService(world.scratch.db, createCodeCache(world.scratch.redis, world.scratch.ctx.keys))
    const codes: string[] = []
    for (let i = 0; i < shape.players; i++) {
      const issued = await codeService.issue(String(910000000000000000n + BigInt(i)))
      await codeService.bind(issued.code.code, { platformUserId: String(100000 + i), platformUsername: `Player_${i}` }, { source: 'bench' })
      codes.push(issued.code.code)
      if ((i + 1) % 2000 === 0) log(`volume: ${i + 1}/${shape.players} players linked`)
    }
    const key = await apiKey(world)
    await attach(world, universe)
    await startParts(world, false)
    const perServer = Math.ceil(shape.players / shape.servers)
    const servers = Array.from({ length: shape.servers }, (_, s) => [`server-${s}`, codes.slice(s * perServer, (s + 1) * perServer)] as const)
    stopRenewing = await keepSubscribed(world, key, universe, servers)
    const presence = createPresenceStore(world.scratch.redis, world.scratch.ctx.keys)
    await presence.markLive(0, 3_600_000)
    await waitFor('the publisher to look at the universe', async () => (await world.scratch.redis.hlen(world.scratch.ctx.keys.pushSent(universe))) >= shape.players, 60_000)
    const before = (await messages(world, universe)).length
    // Each code changes once per period at a random moment: a schedule of (time, code) for the whole run.
    const periodMs = shape.changeEverySeconds * 1000
    const runMs = shape.minutes * 60_000
    const schedule: Array<{ at: number; code: string }> = []
    for (let start = 0; start < runMs; start += periodMs) {
      for (const code of codes) {
        const at = start + Math.random() * periodMs
        if (at < runMs) schedule.push({ at, code })
      }
    }
    schedule.sort((a, b) => a.at - b.at)
    const writes: Array<{ code: string; at: number; marker: string }> = []
    const origin = Date.now()
    let n = 0
    for (const item of schedule) {
      const wait = origin + item.at - Date.now()
      if (wait > 0) await sleep(wait)
      const marker = `G${n++}`
      writes.push({ code: item.code, at: Date.now(), marker })
      await presence.set(item.code, { shard: 0, status: 'online', activity: `Playing,\n${marker};\n` })
      if (n % 5000 === 0) log(`volume: ${n}/${schedule.length} changes written`)
    }
    await sleep(Math.max(5000, shape.windowMs * 5))
    const all = (await messages(world, universe)).slice(before)
    const perMinute: number[] = []
    for (const m of all) {
      const minute = Math.floor((Date.parse(m.at) - origin) / 60_000)
      if (minute < 0 || minute >= shape.minutes) continue
      perMinute[minute] = (perMinute[minute] ?? 0) + 1
    }
    // Each write is carried by the first message after it that names its code (blocks or codes).
    const carried = new Map<string, number[]>()
    for (const m of all) {
      const body = JSON.parse(m.message) as { blocks?: Record<string, string>; codes?: string[] }
      for (const code of body.codes ?? Object.keys(body.blocks ?? {})) {
        let list = carried.get(code)
        if (list === undefined) carried.set(code, (list = []))
        list.push(Date.parse(m.at))
      }
    }
    const lags: number[] = []
    let missing = 0
    for (const w of writes) {
      const after = carried.get(w.code)?.find((at) => at >= w.at)
      if (after === undefined) missing++
      else lags.push(after - w.at)
    }
    const { universeBudgetPerMinute } = await import('../../../src/push/model/publish-budget.js')
    return {
      players: shape.players,
      servers: shape.servers,
      changeEverySeconds: shape.changeEverySeconds,
      minutes: shape.minutes,
      changes: writes.length,
      perMinute: Array.from({ length: shape.minutes }, (_, i) => perMinute[i] ?? 0),
      blocksMessages: all.filter((m) => m.message.startsWith('{"v":1,"blocks"')).length,
      codesMessages: all.filter((m) => m.message.startsWith('{"v":1,"codes"')).length,
      budgetPerMinute: universeBudgetPerMinute({ servers: shape.servers, players: shape.players }),
      p50Ms: median(lags),
      p99Ms: percentile(lags, 99),
      missing,
    }
  } finally {
    stopRenewing()
    await world.remove()
  }
}
