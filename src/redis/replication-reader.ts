/**
 * Reads the Redis primary's replication state for the metrics (issue 22): `INFO replication` and the configured
 * min-replicas-to-write (CONFIG GET; where CONFIG is forbidden, as on some managed Redis, it counts as 0 and the
 * refusal gauge reads 0).
 */
import type { Redis } from 'ioredis'
import { parseReplicationInfo, type ReplicationInfo } from './model/replication-info.js'

/** Reads the primary's replication state; read() throws when Redis cannot be read. */
export interface ReplicationReader {
  read(): Promise<{ info: ReplicationInfo; minReplicasToWrite: number }>
  /** Calls `fn` each time the connection is (re)established. */
  onReconnect(fn: () => void): void
}

/** A reader over `redis` (a fail-fast connection of the worker). */
export function createReplicationReader(redis: Redis): ReplicationReader {
  return {
    async read() {
      const [text, min] = await Promise.all([redis.info('replication'), redis.config('GET', 'min-replicas-to-write').catch(() => null)])
      const value = Array.isArray(min) ? Number(min[1]) : 0
      return { info: parseReplicationInfo(text), minReplicasToWrite: Number.isFinite(value) ? value : 0 }
    },
    onReconnect(fn) {
      redis.on('ready', fn)
    },
  }
}
