/**
 * A per-category lease in Redis: the one delivery process holding it posts that category's entries, so they go
 * out in order however many delivery processes run. The holder renews it every third of its life and checks it
 * right before each request; a process that stalls longer than the lease loses it and stops posting.
 */
import type { Redis } from 'ioredis'

// A lease still carrying our token (we lost track of it during a Redis error) is taken back rather than waited out.
const ACQUIRE =
  "local v = redis.call('GET', KEYS[1]) if v == false or v == ARGV[1] then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end return 0"
const RENEW = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0"
const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"

/** One lease as seen by one process. */
export interface Lease {
  /** True while this process believes it holds the lease. */
  readonly held: boolean
  /** Takes the lease if it is free; true when held afterwards. */
  acquire(): Promise<boolean>
  /** Extends the lease if still ours; false (and `held` false) when it was lost. */
  confirm(): Promise<boolean>
  /** Gives the lease up if still ours. */
  release(): Promise<void>
}

/** Creates the lease `key` for the holder `token`, lasting `ttlMs` unless renewed. */
export function createLease(redis: Redis, key: string, token: string, ttlMs: number): Lease {
  let held = false
  let timer: NodeJS.Timeout | undefined
  const stopRenewing = () => {
    if (timer !== undefined) clearInterval(timer)
    timer = undefined
  }
  const lease: Lease = {
    get held() {
      return held
    },
    async acquire() {
      if (held) return lease.confirm()
      held = Number(await redis.eval(ACQUIRE, 1, key, token, ttlMs)) === 1
      if (held) {
        timer = setInterval(() => {
          lease.confirm().catch(() => undefined)
        }, Math.max(100, Math.floor(ttlMs / 3)))
        timer.unref()
      }
      return held
    },
    async confirm() {
      if (!held) return false
      try {
        held = Number(await redis.eval(RENEW, 1, key, token, ttlMs)) === 1
      } catch {
        // Redis unreachable: the lease may expire meanwhile, so stop posting until it is taken again.
        held = false
      }
      if (!held) stopRenewing()
      return held
    },
    async release() {
      stopRenewing()
      if (!held) return
      held = false
      await redis.eval(RELEASE, 1, key, token).catch(() => undefined)
    },
  }
  return lease
}
