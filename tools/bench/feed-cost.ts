/**
 * `npm run build:tools && node dist/tools/bench/feed-cost.js [writes] [subscribers]`: the change feed's cost on the
 * gateway's presence writes. Alternates runs of `writes` presence writes (50 in flight) as the gateway made them
 * before the feed (MULTI HSET) and as it makes them now (presence-store.ts: MULTI HSET + PUBLISH `{p}:feed`), with
 * `subscribers` connections following the feed (fronts), on a scratch prefix; prints writes/s per run and the medians.
 */
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { encodePresence } from '../../src/presence/model/presence-entry.js'
import { followChangeFeed } from '../../src/redis/change-feed.js'
import { createRedisKeys } from '../../src/redis/keys.js'
import { createPresenceStore } from '../../src/redis/presence-store.js'
import { median } from '../harness/stats.js'

const writes = Number(process.argv[2] ?? 20_000)
const subscribers = Number(process.argv[3] ?? 2)
const RUNS = 3
const IN_FLIGHT = 50
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const keys = createRedisKeys(`benchfeed${randomBytes(4).toString('hex')}`)
const redis = new Redis(url)
const store = createPresenceStore(redis, keys)
const feeds = await Promise.all(Array.from({ length: subscribers }, () => followChangeFeed(new Redis(url), keys)))
let delivered = 0
for (const feed of feeds) feed.onChange(() => delivered++)
const codes = Array.from({ length: 1000 }, (_, i) => i.toString(36).toUpperCase().padStart(4, '0'))
const entry = (i: number) => ({ shard: 0, status: 'online' as const, activity: `Playing,\nGame ${i};\n` })

async function run(write: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < writes) {
        const i = next++
        await write(i)
      }
    }),
  )
  return writes / ((performance.now() - started) / 1000)
}

const before: number[] = []
const after: number[] = []
try {
  for (let r = 1; r <= RUNS; r++) {
    before.push(await run((i) => redis.multi().hset(keys.presence, codes[i % codes.length]!, encodePresence(entry(i))).exec()))
    after.push(await run((i) => store.set(codes[i % codes.length]!, entry(i))))
    console.log(`run ${r}: MULTI HSET ${Math.round(before.at(-1)!)} writes/s; MULTI HSET+PUBLISH ${Math.round(after.at(-1)!)} writes/s`)
  }
  console.log(
    JSON.stringify({ writes, subscribers, inFlight: IN_FLIGHT, beforePerSec: Math.round(median(before)), afterPerSec: Math.round(median(after)), ratio: median(after) / median(before), delivered }),
  )
} finally {
  await redis.del(keys.presence)
  await Promise.all(feeds.map((f) => f.close()))
  redis.disconnect()
}
