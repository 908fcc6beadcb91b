/**
 * Gateway metrics, registered only by the gateway process. Usage in the gateway entry:
 *
 *   const registry = createMetricsRegistry()
 *   const metrics = createGatewayMetrics(registry, { presenceEntries: () => presenceStore.size() })
 *   client.on(Events.ShardReady, (id) => metrics.setShardReady(id, true))
 *   client.on(Events.ShardDisconnect, (_e, id) => metrics.setShardReady(id, false))
 *   setInterval(() => client.ws.shards.forEach((s) => metrics.setShardPing(s.id, s.ping)), 15_000)
 *   await startMetricsServer(ctx, registry, ctx.config.gatewayMetricsPort)
 */
import type { Registry } from 'prom-client'
import { Metric, shardLabel } from './metric-names.js'
import { gaugeOf } from './registry.js'
import { createShortfallCounter } from './replication-metrics.js'

/** Handles the gateway calls to report its state. */
export interface GatewayMetrics {
  /** Marks a shard ready (1) or not (0). */
  setShardReady(shard: number, ready: boolean): void
  /** Records a shard's last heartbeat round trip in milliseconds (discord.js `shard.ping`; negative means unknown). */
  setShardPing(shard: number, pingMs: number): void
  /** Forgets a shard this process no longer runs. */
  removeShard(shard: number): void
  /** An audit event was not confirmed by REDIS_WRITE_REPLICAS replicas in time. */
  replicaShortfall?(write: 'audit'): void
}

/** Options: where the presence entry count comes from (read at each scrape). */
export interface GatewayMetricsOptions {
  presenceEntries?: () => Promise<number>
}

/** Registers the gateway metrics on `registry`. */
export function createGatewayMetrics(registry: Registry, opts: GatewayMetricsOptions = {}): GatewayMetrics {
  const ready = gaugeOf(registry, Metric.gatewayShardReady)
  const ping = gaugeOf(registry, Metric.gatewayShardPing)
  const count = opts.presenceEntries
  gaugeOf(
    registry,
    Metric.presenceEntries,
    count === undefined
      ? undefined
      : async (gauge) => {
          try {
            gauge.set(await count())
          } catch {
            // Redis down: NaN says "unknown" where 0 or a stale count would mislead; the scrape itself still succeeds.
            gauge.set(Number.NaN)
          }
        },
  )
  const shortfall = createShortfallCounter(registry)
  return {
    replicaShortfall: shortfall,
    setShardReady(shard, isReady) {
      ready.set({ shard: shardLabel(shard) }, isReady ? 1 : 0)
    },
    setShardPing(shard, pingMs) {
      if (!Number.isFinite(pingMs) || pingMs < 0) ping.remove({ shard: shardLabel(shard) })
      else ping.set({ shard: shardLabel(shard) }, pingMs / 1000)
    },
    removeShard(shard) {
      ready.remove({ shard: shardLabel(shard) })
      ping.remove({ shard: shardLabel(shard) })
    },
  }
}
