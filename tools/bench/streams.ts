/**
 * Stream fan-out benchmark (issue 11): STREAMS concurrent stream subscribers (half SSE, half WebSocket), CODES_PER
 * stream codes each, on one front worker (the real front from dist/, FRONT_WORKERS=1, rate limits off), and how fast
 * a presence change reaches them. Run:
 *
 *   npm run build:tools && node dist/tools/bench/streams.js      (STREAMS=10000 CODES_PER_STREAM=50 by default)
 *
 * Latency is measured from just before the Redis write (the presence store's MULTI that also publishes the change on
 * the feed, which is what the gateway does on a PRESENCE_UPDATE) to the moment the bench client reads the block, for
 * every subscriber of the changed code. The front worker's RSS is read before and after the streams opened.
 * The clients are raw sockets (SSE) and the `ws` package (WebSocket), in this process, matching only a marker.
 */
import { connect, type Socket } from 'node:net'
import WebSocket from 'ws'
import { renderActivityGroups } from '../../src/presence/model/activity.js'
import { createCodeCache } from '../../src/redis/code-cache.js'
import { createPresenceStore } from '../../src/redis/presence-store.js'
import { buildCodeService } from '../../src/runtime/services.js'
import { childPids, rssBytes } from '../harness/proc-sampler.js'
import { createBenchLog, startProcess, stopAll } from '../harness/processes.js'
import { sleep, waitFor, waitForFront } from '../harness/readiness.js'
import { createScratch } from '../harness/scratch.js'
import { pool } from '../harness/pool.js'

const STREAMS = Number(process.env.STREAMS ?? 10_000)
const CODES_PER_STREAM = Number(process.env.CODES_PER_STREAM ?? 50)
const CODES = Number(process.env.CODES ?? 2000)
const UPDATES = Number(process.env.UPDATES ?? 40)
const log = createBenchLog('streams')

function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

async function main(): Promise<void> {
  const scratch = await createScratch({
    stem: 'streams',
    poolSize: 4,
    env: { STREAM_MAX_PER_CLIENT: String(STREAMS + 10), STREAM_MAX_SUBSCRIPTIONS: '100000000', UNKNOWN_CODE_BUDGET: '0' },
  })
  try {
    const codes = buildCodeService(scratch.db, createCodeCache(scratch.redis, scratch.ctx.keys))
    const presence = createPresenceStore(scratch.redis, scratch.ctx.keys)
    await presence.markLive(0, 3_600_000)
    const linked = await pool([...Array(CODES).keys()], 16, async (i) => {
      const { code } = await codes.issue(String(700_000_000_000_000_000n + BigInt(i)))
      await codes.bind(code.code, { platformUserId: String(1000 + i), platformUsername: `Bench_${i}` }, { source: 'bench' })
      return code.code
    })
    log(`${CODES} linked codes`)
    const front = startProcess({ name: 'front', script: 'src/cli.js', args: ['front'], env: scratch.env })
    await waitForFront(scratch.port)
    await sleep(500)
    const [worker] = await childPids(front.pid)
    if (worker === undefined) throw new Error('no front worker')
    const rssBefore = await rssBytes(worker)

    // Each delivery of an update carries `T<n>x`; the client records when it saw it.
    const sentAt = new Map<number, number>()
    const latencies: number[] = []
    const perUpdate = new Map<number, number[]>()
    let initialBlocks = 0
    const seen = (text: string) => {
      const now = performance.now()
      for (const m of text.matchAll(/T(\d+)x/g)) {
        const at = sentAt.get(Number(m[1]))
        if (at === undefined) continue
        latencies.push(now - at)
        const list = perUpdate.get(Number(m[1])) ?? []
        list.push(now - at)
        perUpdate.set(Number(m[1]), list)
      }
    }
    const pick = (s: number) => {
      const out = new Set<string>()
      for (let k = 0; out.size < CODES_PER_STREAM; k++) out.add(linked[(s * 7919 + k * 104729) % CODES]!)
      return [...out]
    }
    const sockets: (Socket | WebSocket)[] = []
    const openOne = async (s: number) => {
      const mine = pick(s)
      if (s % 2 === 0) {
        const socket = connect(scratch.port, '127.0.0.1')
        sockets.push(socket)
        socket.setEncoding('utf8')
        await new Promise<void>((resolve, reject) => {
          let opened = false
          socket.on('data', (text: string) => {
            if (!opened) {
              opened = true
              resolve()
            }
            initialBlocks += text.split('event: block').length - 1
            seen(text)
          })
          socket.once('error', reject)
          socket.write(`GET /api/v1/stream/${mine.join('&')} HTTP/1.1\r\nHost: bench\r\n\r\n`)
        })
      } else {
        const ws = new WebSocket(`ws://127.0.0.1:${scratch.port}/api/v1/ws`, { perMessageDeflate: false })
        sockets.push(ws)
        ws.on('message', (data) => {
          const text = String(data)
          if (text.startsWith('{"op":"block"')) initialBlocks++
          seen(text)
        })
        await new Promise<void>((resolve, reject) => {
          ws.once('open', () => resolve())
          ws.once('error', reject)
        })
        ws.send(JSON.stringify({ op: 'subscribe', codes: mine }))
      }
    }
    const t0 = performance.now()
    await pool([...Array(STREAMS).keys()], 200, openOne)
    await waitFor('every first block', async () => initialBlocks >= STREAMS * CODES_PER_STREAM, 300_000, 200)
    log(`${STREAMS} streams open with ${initialBlocks} first blocks in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    await sleep(2000)
    const rssAfter = await rssBytes(worker)
    const perStream = (rssAfter - rssBefore) / STREAMS
    log(`front worker RSS ${(rssBefore / 2 ** 20).toFixed(1)} MiB -> ${(rssAfter / 2 ** 20).toFixed(1)} MiB: ${(perStream / 1024).toFixed(1)} KiB per open stream`)

    let expected = 0
    const writeMs = new Map<number, number>()
    for (let n = 1; n <= UPDATES; n++) {
      const code = linked[(n * 31) % CODES]!
      const subscribers = [...Array(STREAMS).keys()].filter((s) => pick(s).includes(code)).length
      expected += subscribers
      sentAt.set(n, performance.now())
      await presence.set(code, { shard: 0, status: 'online', activity: renderActivityGroups([{ type: 0, name: `T${n}x` }], 'Roblox') })
      // The write's own round trip: when Redis itself stalls (it is shared), this shows it.
      writeMs.set(n, performance.now() - sentAt.get(n)!)
      await sleep(250)
    }
    await sleep(1000)
    latencies.sort((a, b) => a - b)
    if (process.env.PER_UPDATE) {
      for (const [n, list] of perUpdate) {
        log(`update ${n}: write acknowledged after ${writeMs.get(n)?.toFixed(1)} ms; ${list.length} deliveries, first ${Math.min(...list).toFixed(1)} ms, last ${Math.max(...list).toFixed(1)} ms`)
      }
    }
    log(`${UPDATES} updates, ${latencies.length}/${expected} deliveries: p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms, max ${latencies.at(-1)?.toFixed(1)} ms`)
    console.log(JSON.stringify({ streams: STREAMS, codesPerStream: CODES_PER_STREAM, codes: CODES, deliveries: latencies.length, expected, p50Ms: quantile(latencies, 0.5), p99Ms: quantile(latencies, 0.99), rssBefore, rssAfter, rssPerStreamBytes: perStream }))
    for (const s of sockets) (s as Socket).destroy?.() ?? (s as WebSocket).terminate()
  } finally {
    await stopAll()
    await scratch.remove()
  }
}

await main()
