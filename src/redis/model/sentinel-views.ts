/**
 * Which Sentinel to ask first for the primary (pure). A Sentinel cut off from its peers (the minority side of a
 * partition) keeps naming the old primary, under the configuration epoch it last saw; the Sentinels that failed over
 * name the new one under a higher epoch. A client that asked the first Sentinel to answer (ioredis's way) could be sent
 * back to the old primary for the whole partition. So every reachable Sentinel is asked, and the newest view wins.
 */

/** What one Sentinel said about the master: `SENTINEL MASTER <name>` read into the fields that decide. */
export interface SentinelView {
  /** The Sentinel asked (its place in the connection's list is found by host and port). */
  sentinel: { host: string; port: number }
  /** The primary it names. */
  primary: string
  /** Its `config-epoch` for the master: raised by every failover. */
  epoch: number
}

/** Reads a `SENTINEL MASTER` reply (a flat field/value list: ip, port, config-epoch...); null when it is not one. */
export function readSentinelMaster(sentinel: { host: string; port: number }, reply: unknown): SentinelView | null {
  if (!Array.isArray(reply)) return null
  const fields = new Map<string, string>()
  for (let i = 0; i + 1 < reply.length; i += 2) fields.set(String(reply[i]), String(reply[i + 1]))
  const ip = fields.get('ip')
  const port = fields.get('port')
  const epoch = Number(fields.get('config-epoch'))
  if (ip === undefined || port === undefined || !Number.isInteger(epoch)) return null
  return { sentinel, primary: `${ip}:${port}`, epoch }
}

/**
 * The Sentinel to ask first: one holding the newest view (highest epoch); among those, the one naming the primary most
 * of them name, then the earliest answer. Null when nobody answered.
 */
export function newestView(views: readonly SentinelView[]): SentinelView | null {
  if (views.length === 0) return null
  const top = Math.max(...views.map((v) => v.epoch))
  const newest = views.filter((v) => v.epoch === top)
  const votes = new Map<string, number>()
  for (const v of newest) votes.set(v.primary, (votes.get(v.primary) ?? 0) + 1)
  let best = newest[0]!
  for (const v of newest) if (votes.get(v.primary)! > votes.get(best.primary)!) best = v
  return best
}
