/**
 * The state of the gateway's shards: which are ready (the gateway's Discord readiness, and the shards the presence
 * sync may use), and their readiness and heartbeat round trip reported to the gateway metrics as they change.
 */
import { Events, Status, type Client } from 'discord.js'
import type { GatewayMetrics } from '../metrics/gateway-metrics.js'

/** How often each shard's heartbeat round trip is reported. */
const PING_REPORT_MS = 15_000

/** True while every shard of `client` is connected and ready (the gateway's Discord readiness). */
export function shardsReady(client: Client): boolean {
  return client.ws.shards.size > 0 && client.ws.shards.every((s) => s.status === Status.Ready)
}

/** The ids of the shards of `client` whose connection is ready. */
export function readyShardIds(client: Client): number[] {
  return client.ws.shards.filter((s) => s.status === Status.Ready).map((s) => s.id)
}

/**
 * Reports `shardIds` not ready until they are, then each shard's readiness as it changes and its round trip every
 * PING_REPORT_MS; returns the function that stops the round-trip reports.
 */
export function reportShardStatus(client: Client, metrics: GatewayMetrics, shardIds: readonly number[]): () => void {
  for (const shard of shardIds) metrics.setShardReady(shard, false)
  client.on(Events.ShardReady, (shard) => metrics.setShardReady(shard, true))
  client.on(Events.ShardResume, (shard) => metrics.setShardReady(shard, true))
  client.on(Events.ShardDisconnect, (_event, shard) => metrics.setShardReady(shard, false))
  client.on(Events.ShardReconnecting, (shard) => metrics.setShardReady(shard, false))
  const pings = setInterval(() => client.ws.shards.forEach((s) => metrics.setShardPing(s.id, s.ping)), PING_REPORT_MS)
  pings.unref()
  return () => clearInterval(pings)
}
