/**
 * Follows the change feed (`{p}:feed`, redis/model/feed-message.ts) on a dedicated subscriber connection.
 *
 * The feed is live only between a confirmed SUBSCRIBE and the next loss of the connection: messages published while
 * a follower is not subscribed are lost, so a follower that caches views must drop them all when the feed stops
 * being live (`onLive(false)`) and cache nothing until it is live again. Subscribing is done here on every `ready`,
 * and liveness starts only when that SUBSCRIBE is confirmed: ioredis may re-subscribe on its own first, and messages
 * it delivers before then are ignored, which is safe because a follower caches nothing read before it turned live.
 */
import type { Redis } from 'ioredis'
import { decodeFeedMessage, type FeedChange } from './model/feed-message.js'
import type { RedisKeys } from './keys.js'

/** A follower of the change feed. */
export interface ChangeFeed {
  /** True while subscribed: every change published from now on will be delivered. */
  readonly live: boolean
  /** Calls `listener` for every change delivered; returns a function that stops it. */
  onChange(listener: (change: FeedChange) => void): () => void
  /** Calls `listener` whenever the feed becomes live (true) or stops being live (false); returns a stop function. */
  onLive(listener: (live: boolean) => void): () => void
  /** Unsubscribes and closes the connection. */
  close(): Promise<void>
}

/**
 * Follows the feed over `subscriber`, a connection used for nothing else (it enters subscriber mode). SUBSCRIBE is
 * sent again on every `ready` (harmless if ioredis re-subscribed too) and liveness starts only once it is confirmed.
 * Resolves once the first subscription is confirmed, or at once when Redis is unreachable (the feed then turns live
 * when Redis comes back).
 */
export async function followChangeFeed(subscriber: Redis, keys: RedisKeys, onError?: (err: Error) => void): Promise<ChangeFeed> {
  const changeListeners = new Set<(change: FeedChange) => void>()
  const liveListeners = new Set<(live: boolean) => void>()
  let live = false
  let closed = false

  const setLive = (next: boolean) => {
    if (live === next) return
    live = next
    for (const listener of liveListeners) listener(next)
  }
  const subscribe = async () => {
    try {
      await subscriber.subscribe(keys.feed)
      if (!closed && subscriber.status === 'ready') setLive(true)
    } catch (err) {
      onError?.(err as Error)
    }
  }

  subscriber.on('message', (channel: string, message: string) => {
    if (channel !== keys.feed || !live) return
    const change = decodeFeedMessage(message)
    for (const listener of changeListeners) listener(change)
  })
  // Any sign of a lost connection ends liveness at once: what was published meanwhile will not arrive.
  for (const event of ['close', 'end', 'reconnecting', 'error'] as const) subscriber.on(event, () => setLive(false))
  subscriber.on('ready', () => {
    if (!closed) void subscribe()
  })
  if (subscriber.status === 'ready') await subscribe()
  else {
    // Wait for the first confirmed subscription, but not for an unreachable Redis: the feed turns live later.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, 5000)
      function done() {
        clearTimeout(timer)
        liveListeners.delete(onFirstLive)
        subscriber.off('error', done)
        resolve()
      }
      const onFirstLive = (l: boolean) => {
        if (l) done()
      }
      liveListeners.add(onFirstLive)
      subscriber.once('error', done)
    })
  }

  return {
    get live() {
      return live
    },
    onChange(listener) {
      changeListeners.add(listener)
      return () => changeListeners.delete(listener)
    },
    onLive(listener) {
      liveListeners.add(listener)
      return () => liveListeners.delete(listener)
    },
    async close() {
      closed = true
      setLive(false)
      await subscriber.quit().catch(() => subscriber.disconnect())
    },
  }
}
