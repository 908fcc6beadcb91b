/**
 * A front worker's read path: the change feed follower (its own subscriber connection), the shard marks watcher,
 * the near cache they keep current, and the lookup over them. Streams use the same feed, marks and lookup.
 */
import type { Redis } from 'ioredis'
import { createNearCache, type NearCache } from '../presence/model/near-cache.js'
import { followChangeFeed, type ChangeFeed } from './change-feed.js'
import { createRedis } from './connection.js'
import { reconnectWhenSilent } from './silence-watch.js'
import { createCodeLookup, type CodeLookup } from './code-lookup.js'
import { watchShardMarks, type ShardMarks } from './shard-marks.js'
import type { Config } from '../config.js'
import type { ProcessBasics } from '../lib/process-basics.js'
import type { RedisKeys } from './keys.js'
import { watchRedisClient, type RedisWatch } from './redis-watch.js'

/** What the read path reports, for metrics; every method is optional (the front's observer extends it). */
export interface ReadPathObserver {
  /** Codes of one callbacks/rpc/stream lookup answered from the near cache and read from Redis. */
  nearCache?(hits: number, misses: number): void
  /** The near cache pushed out its least recently used entry. */
  nearCacheEvicted?(): void
  /** Seconds between a change feed message's writer clock and its arrival at this front. */
  feedLag?(seconds: number): void
  /** Called once at start with a reader of the read path's state, for gauges read at scrape time. */
  readPathState?(state: () => ReadPathState): void
}

/** The read path's state at one moment: near cache entries and whether the change feed is live. */
export interface ReadPathState {
  entries: number
  feedLive: boolean
}

/** What the read path takes of its process: its basics, the Redis settings and keys, the connection watch. */
export interface ReadPathContext extends ProcessBasics {
  readonly config: Pick<Config, 'redis' | 'nearCacheEntries'>
  readonly keys: RedisKeys
  readonly redisWatch: RedisWatch
}

/** A started read path. */
export interface ReadPath {
  lookup: CodeLookup
  feed: ChangeFeed
  marks: ShardMarks
  near: NearCache
}

/**
 * Starts the feed follower and the marks watcher over `redis` (for the marks and reads) and a new subscriber
 * connection, named `<process>:feed:<REDIS_PREFIX>`, and wires them to a near cache of NEAR_CACHE_ENTRIES.
 */
export async function startReadPath(ctx: ReadPathContext, redis: Redis, observer?: ReadPathObserver): Promise<ReadPath> {
  const { config, keys, log } = ctx
  const near = createNearCache(config.nearCacheEntries, () => observer?.nearCacheEvicted?.())
  const subscriber = createRedis(config.redis, 'worker', `${ctx.name}:feed:${keys.prefix}`)
  // Outages are logged once per change by the connection watch; the marks' and feed's own errors are details.
  watchRedisClient(ctx.redisWatch, 'feed', subscriber)
  // A silent subscriber would keep the feed "live" while the changes published meanwhile are lost or late, and the
  // near cache would go on serving what it holds: re-making it ends liveness (and the near cache) at once.
  const stopWatch = reconnectWhenSilent(subscriber, {
    onSilent: (silentMs) => log.warn({ client: 'feed', silentMs }, 'change feed connection silent: near cache dropped, re-making the connection'),
  })
  ctx.shutdown.register('redis:feed', async () => {
    stopWatch()
    await subscriber.quit().catch(() => subscriber.disconnect())
  })
  const marks = await watchShardMarks(redis, keys, { onError: (err) => log.debug({ err: err.message }, 'could not read the shard marks') })
  ctx.shutdown.register('shard-marks', () => marks.stop())
  const feed = await followChangeFeed(subscriber, keys, (err) => log.debug({ err: err.message }, 'could not subscribe to the change feed'))
  ctx.shutdown.register('change-feed', () => feed.close())

  feed.onLive((live) => {
    near.setLive(live)
    log.info({ live }, live ? 'change feed live: near cache on' : 'change feed lost: near cache dropped')
  })
  feed.onChange((change) => {
    if (change.all) near.invalidateAll()
    else near.invalidate(change.codes)
    if (Number.isFinite(change.sentAt)) observer?.feedLag?.(Math.max(0, Date.now() - change.sentAt) / 1000)
  })
  marks.onTransition((shards) => near.dropShards(shards))
  near.setLive(feed.live)
  observer?.readPathState?.(() => ({ entries: near.size, feedLive: feed.live }))

  const lookup = createCodeLookup(redis, keys, marks, {
    near,
    ...(observer?.nearCache === undefined ? {} : { onNearCache: (hits: number, misses: number) => observer.nearCache!(hits, misses) }),
  })
  return { lookup, feed, marks, near }
}
