/**
 * The rule of the Redis copies: they are rebuilt from MySQL whenever their built marker is missing (first start, or
 * Redis restarted empty or was flushed), so game servers are not locked out and codes do not read as unknown until
 * some process restarts; and the reconciler (copies/reconciler.ts) repairs any other drift within seconds.
 */
import type { Registry } from 'prom-client'
import type { Logger } from '../lib/logger.js'
import type { CopySource } from '../mysql/copy-source.js'
import type { CopyStore } from '../redis/copy-store.js'
import { startReconciler, type Reconciler, type ReconcilerOptions } from './reconciler.js'

/** Both sides of the copies, and where to report. */
export interface CopyKeeperDeps {
  source: CopySource
  store: CopyStore
  log: Logger
  /** True while this process's Redis connections are down (its outage is logged once elsewhere). */
  redisDown(): boolean
  /** Where the reconciler's repair counter is registered. */
  metrics?: Registry
}

/** Options of keepCopies. */
export interface KeepCopiesOptions {
  /** How often the built marker is checked. */
  everyMs?: number
  /** The reconciler's timing. */
  reconcile?: ReconcilerOptions
}

/** Rebuilds the copies of API keys and codes from MySQL when they are missing. */
export async function prepareCopies(deps: Pick<CopyKeeperDeps, 'source' | 'store' | 'log'>): Promise<void> {
  const { source, store, log } = deps
  // Keys first: the code cache's built marker is written last, so a crash in between redoes both. Per key,
  // compare-and-set: a key revoked after this read has a newer version in the copy, which this write cannot undo.
  const keys = await source.allApiKeys()
  await store.putApiKeys(keys)
  log.info({ keys: keys.length }, 'API keys synced to Redis')
  if (await store.codes.ensureBuilt(() => source.allCodes(5000))) log.info('code cache rebuilt from MySQL')
}

/** Keeps the copies converging on MySQL until `stop()`: the built-marker check and the reconciler. */
export function keepCopies(deps: CopyKeeperDeps, options: KeepCopiesOptions = {}): { reconciler: Reconciler; stop(): void } {
  const { store, log } = deps
  let running = false
  const timer = setInterval(() => {
    if (running) return
    running = true
    store.codes
      .isBuilt()
      .then(async (built) => {
        if (!built) {
          log.warn('the Redis copies are gone (Redis restarted empty?); rebuilding them from MySQL')
          await prepareCopies(deps)
        }
      })
      .catch((err: Error) => {
        // While Redis is down the outage is already logged once; this would repeat it every few seconds.
        if (!deps.redisDown()) log.warn({ err: err.message }, 'could not check the Redis copies')
      })
      .finally(() => {
        running = false
      })
  }, options.everyMs ?? 5000)
  timer.unref()
  const reconciler = startReconciler(
    { source: deps.source, store, log, ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }) },
    options.reconcile,
  )
  return {
    reconciler,
    stop() {
      clearInterval(timer)
      reconciler.stop()
    },
  }
}
