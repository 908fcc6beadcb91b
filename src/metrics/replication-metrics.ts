/**
 * Redis replication as the service sees it (issue 22): the primary's online replicas, their largest lag, whether it
 * refuses writes (min-replicas-to-write), and how often the primary changed (a new replication id: a failover).
 * Read through a ReplicationReader at scrape time and at each reconnect; the shortfall counter of the writers.
 */
import type { Registry } from 'prom-client'
import type { Logger } from '../lib/logger.js'
import { refusesWrites, type ReplicationInfo } from '../redis/model/replication-info.js'
import type { ReplicationReader } from '../redis/replication-reader.js'
import { CONFIRMED_WRITES, labelValue, Metric } from './metric-names.js'
import { counterOf, gaugeOf } from './registry.js'

/** Registers the replication gauges and the primary change counter on `registry`. */
export function registerReplicationMetrics(registry: Registry, reader: ReplicationReader, log?: Pick<Logger, 'debug'>): void {
  const changes = counterOf(registry, Metric.redisPrimaryChanges)
  changes.inc(0)
  let replid = ''
  // The primary's history id: a change seen here (at a reconnect or a scrape) is a new primary.
  const note = (info: ReplicationInfo) => {
    if (info.role !== 'master' || info.replid === '') return
    if (replid !== '' && info.replid !== replid) changes.inc()
    replid = info.replid
  }
  let last: Promise<{ info: ReplicationInfo; minReplicasToWrite: number } | null> | null = null
  // One read serves the three gauges of a scrape.
  const read = () => {
    last ??= reader
      .read()
      .then((r) => (note(r.info), r))
      .catch((err: unknown) => (log?.debug({ err: (err as Error).message }, 'could not read Redis replication'), null))
      .finally(() => setImmediate(() => (last = null)))
    return last
  }
  reader.onReconnect(() => void read())
  gaugeOf(registry, Metric.redisReplicas, async (gauge) => {
    const r = await read()
    if (r === null) gauge.reset()
    else gauge.set(r.info.onlineReplicas)
  })
  gaugeOf(registry, Metric.redisReplicaLag, async (gauge) => {
    const r = await read()
    if (r === null) gauge.reset()
    else gauge.set(r.info.maxLagSeconds ?? -1)
  })
  gaugeOf(registry, Metric.redisWritesRefused, async (gauge) => {
    const r = await read()
    if (r === null) gauge.reset()
    else gauge.set(refusesWrites(r.info, r.minReplicasToWrite) ? 1 : 0)
  })
}

/** Counts writes not confirmed by enough replicas (the front's and the gateway's). */
export function createShortfallCounter(registry: Registry): (write: string) => void {
  const counter = counterOf(registry, Metric.redisWriteShortfalls)
  for (const write of CONFIRMED_WRITES) counter.inc({ write }, 0)
  return (write) => counter.inc({ write: labelValue(CONFIRMED_WRITES, write) })
}
