/**
 * Stream delivery under load (issue 11, issue 23): `streams` open streams (half SSE, half WebSocket) of `codesPerStream`
 * codes each on one real front worker (dist/, FRONT_WORKERS=1, rate limits off), on a scratch world of its own, and
 * how fast a presence change reaches every subscriber of the changed code.
 *
 * Latency runs from just before the Redis write (the presence store's MULTI that also publishes on the change feed,
 * what the gateway does on a PRESENCE_UPDATE) to the moment the bench client reads the block. The front runs with the
 * probe (tools/bench/front-probe.ts), so its garbage collections, event-loop stalls and delay during the changes are
 * recorded, and its live heap is read after a full collection; the bench process records its own. The clients are raw
 * sockets (SSE) and the `ws` package (WebSocket), in this process, matching only a marker.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import WebSocket from 'ws'
import { renderActivityGroups } from '../../../src/presence/model/activity.js'
import { createCodeCache } from '../../../src/redis/code-cache.js'
import { createPresenceStore } from '../../../src/redis/presence-store.js'
import { buildCodeService } from '../../../src/runtime/services.js'
import { pool } from '../../harness/pool.js'
import { childPids, rssBytes } from '../../harness/proc-sampler.js'
import { distFile, startProcess } from '../../harness/processes.js'
import { sleep, waitFor, waitForFront } from '../../harness/readiness.js'
import { createScratch } from '../../harness/scratch.js'
import { percentile } from '../../harness/stats.js'
import { heartbeatRounds, lateDeliveries, type HeartbeatRound, type LateDelivery, type Timelines, type UpdateTiming } from './late-deliveries.js'
import { createLoopRecorder, type LoopDelay, type LoopRecord } from './loop-recorder.js'

/** The shape of one stream run. */
export interface StreamSettings {
  streams: number
  codesPerStream: number
  /** Linked codes the streams' codes are drawn from. */
  codes: number
  updates: number
  /** Pause between two changes. */
  spacingMs: number
  /** A delivery later than this counts as late (the target). */
  lateMs: number
}

/** One run's figures. */
export interface StreamRun {
  /** Streams open during the changes. */
  streams: number
  deliveries: number
  expected: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  openSeconds: number
  heartbeatMs: number
  /** Front worker RSS before the streams opened and 2 s after they all had their first blocks (no forced GC). */
  rssBeforeBytes: number
  rssOpenBytes: number
  /** Front worker heap after a full collection: before the streams opened, and at the end with them still open. */
  heapBeforeBytes: number
  heapOpenBytes: number
  /** The front worker during the changes. */
  front: { delay: LoopDelay; gcCount: number; majorGcCount: number; longestGcMs: number; gcMs: number; longestStallMs: number }
  /** The bench process during the changes. */
  bench: { longestGcMs: number; longestStallMs: number }
  heartbeats: HeartbeatRound[]
  updates: UpdateTiming[]
  late: LateDelivery[]
  /** When the changes began (epoch ms), and the timelines the late changes were laid against. */
  windowStart: number
  timelines: Timelines
}

/** Sends one command to the probe in process `pid` and returns its record. */
async function probe(dir: string, pid: number, command: 'reset' | 'record' | 'collect' | `snapshot ${string}`): Promise<LoopRecord> {
  return new Promise((resolve, reject) => {
    const socket = connect(join(dir, `probe-${pid}.sock`))
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => (text += chunk))
    socket.on('end', () => {
      try {
        resolve(JSON.parse(text) as LoopRecord)
      } catch (err) {
        reject(err as Error)
      }
    })
    socket.on('error', reject)
    socket.write(`${command}\n`)
  })
}

/** The streams' clients in this process, counting first blocks, deliveries of each change, and heartbeats. */
function createClients(port: number, settings: StreamSettings, linked: readonly string[]) {
  const sentAt = new Map<number, number>()
  const perUpdate = new Map<number, number[]>()
  const heartbeats: number[] = []
  const sockets: Array<Socket | WebSocket> = []
  let initialBlocks = 0
  const now = () => performance.timeOrigin + performance.now()
  const seen = (text: string) => {
    const at = now()
    for (const m of text.matchAll(/T(\d+)x/g)) {
      const sent = sentAt.get(Number(m[1]))
      if (sent === undefined) continue
      const list = perUpdate.get(Number(m[1])) ?? []
      list.push(at - sent)
      perUpdate.set(Number(m[1]), list)
    }
  }
  const pick = (s: number) => {
    const out = new Set<string>()
    for (let k = 0; out.size < settings.codesPerStream; k++) out.add(linked[(s * 7919 + k * 104729) % linked.length]!)
    return [...out]
  }
  const openSse = (codes: string[]) => {
    const socket = connect(port, '127.0.0.1')
    sockets.push(socket)
    socket.setEncoding('utf8')
    return new Promise<void>((resolve, reject) => {
      socket.on('data', (text: string) => {
        resolve()
        initialBlocks += text.split('event: block').length - 1
        if (text.includes(': ping')) heartbeats.push(now())
        seen(text)
      })
      socket.once('error', reject)
      socket.write(`GET /api/v1/stream/${codes.join('&')} HTTP/1.1\r\nHost: bench\r\n\r\n`)
    })
  }
  const openWs = async (codes: string[]) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/ws`, { perMessageDeflate: false })
    sockets.push(ws)
    ws.on('message', (data) => {
      const text = String(data)
      if (text.startsWith('{"op":"block"')) initialBlocks++
      seen(text)
    })
    ws.on('ping', () => heartbeats.push(now()))
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('error', reject)
    })
    ws.send(JSON.stringify({ op: 'subscribe', codes }))
  }
  return {
    pick,
    sentAt,
    perUpdate,
    heartbeats,
    now,
    get initialBlocks() {
      return initialBlocks
    },
    open: (s: number) => (s % 2 === 0 ? openSse(pick(s)) : openWs(pick(s))),
    close() {
      for (const s of sockets) {
        if (s instanceof WebSocket) s.terminate()
        else s.destroy()
      }
    },
  }
}

/** Seeds `count` linked codes on the scratch world through the code service. */
async function seedCodes(scratch: Awaited<ReturnType<typeof createScratch>>, count: number): Promise<string[]> {
  const codes = buildCodeService(scratch.db, createCodeCache(scratch.redis, scratch.ctx.keys))
  return pool([...Array(count).keys()], 16, async (i) => {
    const { code } = await codes.issue(String(700_000_000_000_000_000n + BigInt(i)))
    await codes.bind(code.code, { platformUserId: String(1000 + i), platformUsername: `Bench_${i}` }, { source: 'bench' })
    return code.code
  })
}

/** Experiments on a run: variables added to the front's environment, and a heap snapshot of it with the streams open. */
export interface StreamExperiment {
  frontEnv?: Record<string, string>
  /** Where to write a heap snapshot of the front worker, taken after the changes (streams open). */
  heapSnapshot?: string
}

/** One run on a world of its own. */
export async function measureStreamDelivery(settings: StreamSettings, log: (message: string) => void, experiment: StreamExperiment = {}): Promise<StreamRun> {
  const frontEnv = experiment.frontEnv ?? {}
  const scratch = await createScratch({
    stem: 'streams',
    poolSize: 4,
    env: { STREAM_MAX_PER_CLIENT: String(settings.streams + 10), STREAM_MAX_SUBSCRIPTIONS: '100000000', UNKNOWN_CODE_BUDGET: '0', ...frontEnv },
  })
  const probeDir = await mkdtemp(join(tmpdir(), 'pl-probe-'))
  const bench = createLoopRecorder()
  const clients = { close: () => {} }
  try {
    const presence = createPresenceStore(scratch.redis, scratch.ctx.keys)
    await presence.markLive(0, 3_600_000)
    const linked = await seedCodes(scratch, settings.codes)
    const nodeOptions = `${process.env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(distFile('tools/bench/front-probe.js')).href}`.trim()
    const front = startProcess({ name: 'front', script: 'src/cli.js', args: ['front'], env: { ...scratch.env, BENCH_PROBE_DIR: probeDir, NODE_OPTIONS: nodeOptions } })
    try {
      await waitForFront(scratch.port)
      await sleep(500)
      const [worker] = await childPids(front.pid)
      if (worker === undefined) throw new Error('no front worker')
      const rssBeforeBytes = await rssBytes(worker)
      const heapBeforeBytes = (await probe(probeDir, worker, 'collect')).memory.heapUsed

      const c = createClients(scratch.port, settings, linked)
      clients.close = c.close
      const t0 = performance.now()
      await pool([...Array(settings.streams).keys()], 200, c.open)
      await waitFor('every first block', async () => c.initialBlocks >= settings.streams * settings.codesPerStream, 300_000, 200)
      const openSeconds = (performance.now() - t0) / 1000
      await sleep(2000)
      const rssOpenBytes = await rssBytes(worker)
      log(`${settings.streams} streams open in ${openSeconds.toFixed(1)} s; front worker RSS ${(rssBeforeBytes / 2 ** 20).toFixed(1)} -> ${(rssOpenBytes / 2 ** 20).toFixed(1)} MiB`)

      // Counted before the changes, so the bench's own work between two changes stays small.
      const subscribers = new Map<string, number>()
      for (let s = 0; s < settings.streams; s++) for (const code of c.pick(s)) subscribers.set(code, (subscribers.get(code) ?? 0) + 1)
      await probe(probeDir, worker, 'reset')
      bench.reset()
      const windowStart = c.now()
      let expected = 0
      const writeMs = new Map<number, number>()
      for (let n = 1; n <= settings.updates; n++) {
        const code = linked[(n * 31) % linked.length]!
        expected += subscribers.get(code) ?? 0
        const sent = c.now()
        c.sentAt.set(n, sent)
        await presence.set(code, { shard: 0, status: 'online', activity: renderActivityGroups([{ type: 0, name: `T${n}x` }], 'Roblox') })
        writeMs.set(n, c.now() - sent)
        await sleep(settings.spacingMs)
      }
      await sleep(1000)
      const frontRecord = await probe(probeDir, worker, 'record')
      const benchRecord = bench.record()
      const heapOpenBytes = (await probe(probeDir, worker, 'collect')).memory.heapUsed
      if (experiment.heapSnapshot !== undefined) {
        await probe(probeDir, worker, `snapshot ${experiment.heapSnapshot}`)
        log(`heap snapshot of the front worker written to ${experiment.heapSnapshot}`)
      }

      const updates: UpdateTiming[] = [...c.sentAt].map(([n, sentAt]) => {
        const list = c.perUpdate.get(n) ?? []
        return { n, sentAt, writeAckMs: writeMs.get(n) ?? Number.NaN, deliveries: list.length, firstMs: Math.min(...list), lastMs: Math.max(...list) }
      })
      const latencies = [...c.perUpdate.values()].flat()
      const arrivals = c.heartbeats.filter((t) => t >= windowStart).sort((a, b) => a - b)
      const heartbeats = heartbeatRounds(arrivals, 1000)
      const timelines: Timelines = { frontGc: frontRecord.gc, frontStalls: frontRecord.stalls, benchGc: benchRecord.gc, benchStalls: benchRecord.stalls, heartbeats: arrivals }
      const frontGc = frontRecord.gc
      return {
        streams: settings.streams,
        deliveries: latencies.length,
        expected,
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        maxMs: Math.max(...latencies),
        openSeconds,
        heartbeatMs: scratch.config.streamHeartbeatMs,
        rssBeforeBytes,
        rssOpenBytes,
        heapBeforeBytes,
        heapOpenBytes,
        front: {
          delay: frontRecord.delay,
          gcCount: frontGc.length,
          majorGcCount: frontGc.filter((g) => g.kind === 'major').length,
          longestGcMs: Math.max(0, ...frontGc.map((g) => g.ms)),
          gcMs: frontGc.reduce((sum, g) => sum + g.ms, 0),
          longestStallMs: Math.max(0, ...frontRecord.stalls.map((s) => s.ms)),
        },
        bench: { longestGcMs: Math.max(0, ...benchRecord.gc.map((g) => g.ms)), longestStallMs: Math.max(0, ...benchRecord.stalls.map((s) => s.ms)) },
        heartbeats,
        updates,
        late: lateDeliveries(updates, timelines, settings.lateMs, settings.streams),
        windowStart,
        timelines,
      }
    } finally {
      clients.close()
      await front.stop()
    }
  } finally {
    bench.stop()
    await rm(probeDir, { recursive: true, force: true })
    await scratch.remove()
  }
}
