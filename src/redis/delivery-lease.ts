/**
 * A per-category lease in Redis: the one delivery process holding it posts that category's entries, so they go
 * out in order however many delivery processes run. The holder renews it every third of its life and checks it
 * right before each request; a process that stalls longer than the lease loses it and stops posting. The key is
 * `{p}:delivery:lease:{category}`; the compare-and-set steps are scripts/lease-acquire|renew|release.lua.
 */
import type { Redis } from 'ioredis'
import { luaCommand } from './lua-scripts.js'

/** One lease as seen by one process. */
export interface DeliveryLease {
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
export function createDeliveryLease(redis: Redis, key: string, token: string, ttlMs: number): DeliveryLease {
  const acquireScript = luaCommand(redis, 'lease-acquire')
  const renewScript = luaCommand(redis, 'lease-renew')
  const releaseScript = luaCommand(redis, 'lease-release')
  let held = false
  let timer: NodeJS.Timeout | undefined
  const stopRenewing = () => {
    if (timer !== undefined) clearInterval(timer)
    timer = undefined
  }
  const lease: DeliveryLease = {
    get held() {
      return held
    },
    async acquire() {
      if (held) return lease.confirm()
      held = Number(await acquireScript([key], [token, ttlMs])) === 1
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
        held = Number(await renewScript([key], [token, ttlMs])) === 1
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
      await releaseScript([key], [token]).catch(() => undefined)
    },
  }
  return lease
}
