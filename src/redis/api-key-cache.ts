/**
 * The front's memory of API keys it has read from the copy (api-key-copy.ts), so a keyed request (bind, log, push,
 * players, info, safety) costs no Redis read for its key. It holds only while the change feed is live: every write to
 * the copy says `MS|keys` on the feed in the same script (scripts/api-key-put.lua), and on that message, or when the
 * feed stops being live, everything remembered is dropped and reads go to Redis until the feed is live again. So a
 * revoked key is refused by every front as soon as the feed delivers the revocation, as when every request read Redis.
 *
 * A read that started before a drop is not remembered when it ends (it may hold the value from before the change).
 * Unknown ids are remembered too (a client sending a made-up key costs no read per request), within the bound.
 */
import type { ApiKeyCopy } from './api-key-copy.js'
import type { ChangeFeed } from './change-feed.js'

/** Key ids remembered at most (active, revoked and unknown alike); the memory is emptied when it is full. */
export const REMEMBERED_KEY_IDS = 10_000

type KeyRead = Awaited<ReturnType<ApiKeyCopy['get']>>

/** Wraps `copy`'s reads with the memory, following `feed`. */
export function createApiKeyCache(copy: Pick<ApiKeyCopy, 'get'>, feed: Pick<ChangeFeed, 'live' | 'onChange' | 'onLive'>, maxEntries = REMEMBERED_KEY_IDS): Pick<ApiKeyCopy, 'get'> & { readonly size: number } {
  const known = new Map<string, KeyRead>()
  // Bumped at every drop: a read that began in an earlier generation is not remembered.
  let generation = 0
  const drop = () => {
    generation++
    known.clear()
  }
  feed.onLive(drop)
  feed.onChange((change) => {
    if (change.all || change.keys === true) drop()
  })
  return {
    get size() {
      return known.size
    },
    async get(id) {
      if (feed.live) {
        const hit = known.get(id)
        if (hit !== undefined) return hit
      }
      const began = generation
      const wasLive = feed.live
      const read = await copy.get(id)
      if (wasLive && feed.live && began === generation) {
        if (known.size >= maxEntries) known.clear()
        known.set(id, read)
      }
      return read
    },
  }
}
