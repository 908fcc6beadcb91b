/**
 * What the primary says of its replicas (`INFO replication`), for the replication metrics and alerts (issue 22).
 * Pure: parses the text Redis returns. A replica line reads `slave0:ip=10.0.0.2,port=6379,state=online,offset=42,lag=0`;
 * `min_slaves_good_slaves` appears only when min-replicas-to-write is configured.
 */

/** The replication state of the node a connection reaches. */
export interface ReplicationInfo {
  role: 'master' | 'slave' | 'unknown'
  /** Identifies the primary's history: a failover (or a restart without persistence) gives a new one. */
  replid: string
  /** Replicas connected and streaming (`state=online`). */
  onlineReplicas: number
  /** The largest `lag` (seconds since the replica's last acknowledgement) among online replicas; null without any. */
  maxLagSeconds: number | null
  /** Replicas Redis counts as good for min-replicas-to-write (lag within min-replicas-max-lag); null when not configured. */
  goodReplicas: number | null
}

/** Parses `INFO replication`. */
export function parseReplicationInfo(text: string): ReplicationInfo {
  const fields = new Map<string, string>()
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(':')
    if (at > 0 && !line.startsWith('#')) fields.set(line.slice(0, at), line.slice(at + 1).trim())
  }
  const role = fields.get('role')
  let onlineReplicas = 0
  let maxLagSeconds: number | null = null
  for (const [key, value] of fields) {
    if (!/^slave\d+$/.test(key)) continue
    const parts = new Map(value.split(',').map((kv) => kv.split('=', 2) as [string, string]))
    if (parts.get('state') !== 'online') continue
    onlineReplicas++
    const lag = Number(parts.get('lag'))
    if (Number.isFinite(lag)) maxLagSeconds = Math.max(maxLagSeconds ?? 0, lag)
  }
  const good = fields.get('min_slaves_good_slaves')
  return {
    role: role === 'master' || role === 'slave' ? role : 'unknown',
    replid: fields.get('master_replid') ?? '',
    onlineReplicas,
    maxLagSeconds,
    goodReplicas: good === undefined || !/^\d+$/.test(good) ? null : Number(good),
  }
}

/**
 * Whether the primary refuses writes now: min-replicas-to-write (`minToWrite`, 0 = off) is more than the good
 * replicas it counts.
 */
export function refusesWrites(info: ReplicationInfo, minToWrite: number): boolean {
  if (minToWrite <= 0) return false
  return (info.goodReplicas ?? info.onlineReplicas) < minToWrite
}
