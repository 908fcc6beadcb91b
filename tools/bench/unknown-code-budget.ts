/**
 * Measures what the unknown-code budget (issue 9) costs and buys. Run:
 *
 *   TS_NODE_TRANSPILE_ONLY=1 node --import @tapjs/typescript/import tools/bench/unknown-code-budget.ts
 *
 * 1. Unknown codes one IPv4 client and one IPv6 /64 can test per hour, before and after, computed from the default
 *    limits in src/config.ts and src/codes/model/unknown-codes.ts (printed with the formula).
 * 2. The cost on a callbacks request (and, without HTTP, the lookup and the budget script alone): the real front app (hyper-express, real Redis lookup and budget script; rate
 *    limits off so only the budget differs) on 127.0.0.1:42010, sequential keep-alive requests, median and p99 latency
 *    for 50 linked codes and for 50 already-counted unknown codes, with the budget on and off.
 * Uses a scratch Redis prefix, deleted at the end. Needs Redis on REDIS_URL (default redis://127.0.0.1:6379).
 */
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { parseConfig, DEFAULT_RATE_LIMITS } from '../../src/config.js'
import { encodeCachedCode } from '../../src/codes/model/code-record.js'
import { UNKNOWN_CODE_WINDOW_SECONDS } from '../../src/codes/model/unknown-codes.js'
import { createFrontApp } from '../../src/http/server.js'
import { createLogger } from '../../src/lib/logger.js'
import { createCodeLookup } from '../../src/redis/code-lookup.js'
import { createRedisKeys } from '../../src/redis/keys.js'
import { createUnknownCodeBudget } from '../../src/redis/unknown-code-budget.js'

const PORT = 42010
const REQUESTS = 3000
const CODES = 50
const SPACE = 36 ** 4

function perHour(): void {
  const cfg = parseConfig({})
  if (!cfg.ok) throw new Error(cfg.problems.join('; '))
  const perRoute = (r: { points: number; seconds: number }) => (r.points / r.seconds) * 3600 * cfg.config.maxCodesPerRequest
  const beforeV4 = perRoute(DEFAULT_RATE_LIMITS.callbacks) + perRoute(DEFAULT_RATE_LIMITS.rpc)
  const budget = cfg.config.unknownCodeBudget
  console.log(`code space 36^4 = ${SPACE}`)
  console.log(`before, one IPv4 client: (callbacks ${DEFAULT_RATE_LIMITS.callbacks.points}/${DEFAULT_RATE_LIMITS.callbacks.seconds}s + rpc ${DEFAULT_RATE_LIMITS.rpc.points}/${DEFAULT_RATE_LIMITS.rpc.seconds}s) x ${cfg.config.maxCodesPerRequest} codes x 3600 s = ${beforeV4} codes/h, so the whole space (${SPACE}) in ${Math.ceil(SPACE / (beforeV4 / 3600) / 60)} min`)
  console.log(`before, one IPv6 /64: every address had its own limit: ${beforeV4} x 2^64 codes/h, the whole space in one 10 s window from ${Math.ceil(SPACE / (DEFAULT_RATE_LIMITS.callbacks.points * cfg.config.maxCodesPerRequest))} addresses`)
  console.log(`after, one IPv4 client: UNKNOWN_CODE_BUDGET = ${budget} distinct unknown codes per ${UNKNOWN_CODE_WINDOW_SECONDS} s window (at most ${2 * budget} across two adjacent windows); ${((budget / SPACE) * 100).toFixed(3)}% of the space per hour, the whole space in ${Math.ceil(SPACE / budget / 24)} days`)
  console.log(`after, one IPv6 /64: the same ${budget} per hour (the /64 is one client)`)
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

async function measure(url: string): Promise<{ median: number; p99: number }> {
  for (let i = 0; i < 200; i++) await (await fetch(url)).text()
  const times: number[] = []
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = process.hrtime.bigint()
    const res = await fetch(url)
    await res.text()
    if (res.status !== 200) throw new Error(`status ${res.status}`)
    times.push(Number(process.hrtime.bigint() - t0) / 1000)
  }
  times.sort((a, b) => a - b)
  return { median: quantile(times, 0.5), p99: quantile(times, 0.99) }
}

async function main(): Promise<void> {
  perHour()
  const prefix = `bench-ucb-${randomBytes(4).toString('hex')}`
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
  const keys = createRedisKeys(prefix)
  const cfg = parseConfig({ RATE_LIMITS: 'off' })
  if (!cfg.ok) throw new Error(cfg.problems.join('; '))
  const linked = Array.from({ length: CODES }, (_, i) => `L${String(i).padStart(3, '0')}`)
  const unknown = Array.from({ length: CODES }, (_, i) => `U${String(i).padStart(3, '0')}`)
  await redis.hset(keys.codes, Object.fromEntries(linked.map((c, i) => [c, encodeCachedCode({ state: 'active', paused: false, chatUserId: String(i), platformUsername: `User_${i}`, version: 1 })])))
  const results: string[] = []
  try {
    for (const on of [false, true]) {
      const app = createFrontApp({
        config: cfg.config,
        log: createLogger('bench', 'silent'),
        lookup: createCodeLookup(redis, keys, { isLive: () => false }),
        verifyKey: async () => ({ ok: false, message: 'no keys in this measurement' }) as never,
        rateLimit: async () => ({ ok: true }),
        unknownCodeBudget: on ? createUnknownCodeBudget(redis, keys, 1000) : null,
        clientIp: (ip) => ip,
        submitBind: async () => null,
        submitLog: async () => {},
        submitLogs: async () => {},
        checkReady: async () => ({ redis: true, mysql: true }),
      })
      await app.listen(PORT, '127.0.0.1')
      for (const [name, codes] of [['50 linked codes', linked], ['50 unknown codes (already counted)', unknown]] as const) {
        const r = await measure(`http://127.0.0.1:${PORT}/api/v1/callbacks/${codes.join('&')}`)
        results.push(`| ${name} | budget ${on ? 'on' : 'off'} | ${r.median.toFixed(0)} µs | ${r.p99.toFixed(0)} µs |`)
      }
      app.close()
    }
    const lookup = createCodeLookup(redis, keys, { isLive: () => false })
    const spend = createUnknownCodeBudget(redis, keys, 1000)!
    const direct = async (name: string, call: () => Promise<unknown>) => {
      for (let i = 0; i < 200; i++) await call()
      const times: number[] = []
      for (let i = 0; i < REQUESTS; i++) {
        const t0 = process.hrtime.bigint()
        await call()
        times.push(Number(process.hrtime.bigint() - t0) / 1000)
      }
      times.sort((a, b) => a - b)
      results.push(`| ${name} | direct call | ${quantile(times, 0.5).toFixed(0)} µs | ${quantile(times, 0.99).toFixed(0)} µs |`)
    }
    await direct('lookup of 50 codes (every request)', () => lookup(unknown))
    await direct('budget script, 50 counted unknown codes (only requests with unknown codes)', () => spend('198.51.100.1', unknown))
  } finally {
    const all = await redis.keys(`${prefix}:*`)
    if (all.length > 0) await redis.del(...all)
    redis.disconnect()
  }
  console.log(`\ncallbacks latency, ${REQUESTS} sequential keep-alive requests each (client and server on this machine):`)
  console.log('| request | budget | median | p99 |\n|---|---|---|---|')
  for (const line of results) console.log(line)
}

await main()
