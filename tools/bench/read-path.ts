/**
 * `npm run bench:read-path`: the focused read-path measurement of issue 11. Starts the real front (FRONT_WORKERS=1)
 * and worker from dist/ on a scratch database and prefix, seeds 50 linked users, and measures against the bare
 * hyper-express ceiling in the same run (medians of SETTINGS.runs): callbacks and rpc with rate limits off, then again
 * on a second front with rate limiting on (limits raised so one load generator is never refused: the cost measured
 * is the limiter's Redis round trip); and the Redis commands one warm callbacks request sends (MONITOR, counting only
 * this scratch prefix's keys, since the Redis may be shared). Prints a Markdown section and appends it to
 * BENCHMARKS.md (`npm run bench` writes that file first, then runs this).
 */
import { appendFile } from 'node:fs/promises'
import type { Redis } from 'ioredis'
import { QueueName } from '../../src/queue/names.js'
import { closeHttp, send } from '../harness/http.js'
import { childPids } from '../harness/proc-sampler.js'
import { createBenchLog, startProcess, stopAll } from '../harness/processes.js'
import { waitForFront } from '../harness/readiness.js'
import { freePort } from '../harness/free-port.js'
import { createScratch } from '../harness/scratch.js'
import { startBenchEnv, type BenchEnv } from './measurements/bench-env.js'
import { compareWithCeiling, startCeiling, type Comparison } from './measurements/ceiling-comparison.js'
import { seedLinkedUsers } from './measurements/linked-users.js'
import { SETTINGS } from './settings.js'
import { fixed, int, median, table } from '../harness/stats.js'

const log = createBenchLog('read-path')

/** Redis commands naming `prefix` sent while `work` runs, per unit of work. */
async function commandsPer(redis: Redis, prefix: string, units: number, work: () => Promise<void>): Promise<{ perUnit: number; byCommand: string }> {
  const monitor = await redis.monitor()
  const counts = new Map<string, number>()
  monitor.on('monitor', (_time: string, args: string[]) => {
    if (!args.some((a) => a.startsWith(`${prefix}:`))) return
    const name = String(args[0]).toLowerCase()
    counts.set(name, (counts.get(name) ?? 0) + 1)
  })
  await new Promise((resolve) => setTimeout(resolve, 200))
  await work()
  await new Promise((resolve) => setTimeout(resolve, 200))
  monitor.disconnect()
  const total = [...counts.values()].reduce((a, b) => a + b, 0)
  const byCommand = [...counts].map(([name, n]) => `${name} ${fixed(n / units, 3)}`).join(', ') || 'none'
  return { perUnit: total / units, byCommand }
}

function row(label: string, c: Comparison): string[] {
  const s = median(c.service.map((r) => r.reqPerSec))
  const ceil = median(c.ceiling.map((r) => r.reqPerSec))
  return [
    `${c.route}, ${label}`,
    int(s),
    fixed(median(c.service.map((r) => r.p99))),
    int(ceil),
    fixed(s / ceil),
    c.service.map((r, i) => fixed(r.reqPerSec / c.ceiling[i]!.reqPerSec)).join(', '),
  ]
}

async function main(): Promise<void> {
  const scratch = await createScratch({ stem: 'benchrp', poolSize: 4, env: { FRONT_WORKERS: '1', ROBLOX_USERS_API: 'http://127.0.0.1:9' } })
  try {
    const { env, ceilingPort } = await startBenchEnv(scratch, { queues: [QueueName.Bind], redisCpu: false })
    const seeded = await seedLinkedUsers(env, SETTINGS.linkedUsers)
    const path = seeded.join('&')
    // The marks watcher reads the shard marks once a second.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const callbacksBody = await send(`${scratch.api}/callbacks/${path}`, 'GET', undefined, {})
    const rpcBody = await send(`${scratch.api}/rpc/${path}`, 'GET', undefined, {})
    env.ceilingPid = (await startCeiling(ceilingPort, callbacksBody.text, rpcBody.text)).pid

    const rows: string[][] = []
    for (const route of ['callbacks', 'rpc'] as const) {
      const body = route === 'callbacks' ? callbacksBody : rpcBody
      rows.push(row('rate limits off', await compareWithCeiling(env, SETTINGS, route, path, Buffer.byteLength(body.text), log)))
    }
    const REQUESTS = 1000
    const warm = await commandsPer(scratch.redis, scratch.name, REQUESTS, async () => {
      for (let i = 0; i < REQUESTS; i++) await send(`${scratch.api}/callbacks/${path}`, 'GET', undefined, {})
    })
    log(`warm callbacks, rate limits off: ${fixed(warm.perUnit, 3)} Redis commands per request (${warm.byCommand})`)

    // A second front with rate limiting on, limits high enough that the load generator (one IP) is never refused.
    const limitedPort = await freePort()
    const limitedEnv = { ...scratch.env, PORT: String(limitedPort), RATE_LIMITS: 'callbacks=100000000/10,rpc=100000000/10' }
    const limited = startProcess({ name: 'front-limited', script: 'src/cli.js', args: ['front'], env: limitedEnv })
    await waitForFront(limitedPort)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const limitedBench: BenchEnv = { ...env, scratch: { ...scratch, api: `http://127.0.0.1:${limitedPort}/api/v1` }, frontWorkerPids: () => childPids(limited.pid) }
    for (const route of ['callbacks', 'rpc'] as const) {
      const body = route === 'callbacks' ? callbacksBody : rpcBody
      rows.push(row('rate limits on', await compareWithCeiling(limitedBench, SETTINGS, route, path, Buffer.byteLength(body.text), log)))
    }
    const warmLimited = await commandsPer(scratch.redis, scratch.name, REQUESTS, async () => {
      for (let i = 0; i < REQUESTS; i++) await send(`${limitedBench.scratch.api}/callbacks/${path}`, 'GET', undefined, {})
    })
    log(`warm callbacks, rate limits on: ${fixed(warmLimited.perUnit, 3)} Redis commands per request (${warmLimited.byCommand})`)

    const section = (
      [
        `## Read path (${new Date().toISOString()}, ${SETTINGS.linkedUsers} codes, FRONT_WORKERS=1, ${SETTINGS.connections} connections, ${SETTINGS.runs} runs of ${SETTINGS.loadSeconds} s)`,
        '',
        table(['route', 'service req/s (median)', 'service p99 ms (median)', 'ceiling req/s (median)', 'ratio of medians', 'ratio per run'], rows),
        '',
        `Redis commands per warm callbacks request (${REQUESTS} sequential requests, MONITOR on this prefix; commands run inside a rate-limit script and the worker's own queue commands are counted too): rate limits off ${fixed(warm.perUnit, 3)} (${warm.byCommand}); rate limits on ${fixed(warmLimited.perUnit, 3)} (${warmLimited.byCommand}).`,
      ].join('\n')
    )
    console.log(section)
    await appendFile(new URL('../../../BENCHMARKS.md', import.meta.url), `\n${section}\n`)
  } finally {
    await stopAll()
    closeHttp()
    await scratch.remove()
  }
}

await main()
