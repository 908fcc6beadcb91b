/**
 * How a connection through Sentinel finds the primary (issue 22). ioredis asks the Sentinels one after another and
 * takes the first answer. Two things go wrong with that on a real network, both seen in `npm run hosts`:
 *
 * - **A Sentinel on the minority side of a partition** still names the old primary. A front that can reach it first
 *   (data-partition: front-a, whose first Sentinel is on the old primary's host) is sent back to the old primary at
 *   every reconnect, and answers 503 until the partition heals, although the new primary is reachable. So every
 *   reachable Sentinel is asked at once, for `SENTINEL MASTER` with its configuration epoch, and the one with the
 *   newest view is asked first (src/redis/model/sentinel-views.ts). ioredis's failover detector (`+switch-master`
 *   from the majority's Sentinels) is what makes such a connection reconnect in the first place.
 * - **A failover announced while the connection is reconnecting.** ioredis 6.0.0 keeps the failover detector of the
 *   stream that just closed until a new stream connects; its `+switch-master` during the reconnect disconnects the
 *   connector mid-question, and the connection ends for good ("Connection is closed.", no reconnect): the 503s of a
 *   front for 30 s after a failover in a CI run, and binds that never recovered in data-cut. The stale detector is
 *   dropped before anything is asked (test/redis/connection.sentinel-race.test.ts fails without it, every time).
 *
 * The detector lives in a private field of ioredis's connector: if a release renames it, that test fails.
 */
import { Redis, SentinelConnector } from 'ioredis'
import { newestView, readSentinelMaster, type SentinelView } from './model/sentinel-views.js'

/** How long one Sentinel may take to answer before the connection goes on without its view. */
export const SENTINEL_ASK_TIMEOUT_MS = 1000

type ConnectorOptions = ConstructorParameters<typeof SentinelConnector>[0]
type ErrorEmitter = Parameters<SentinelConnector['connect']>[0]

/** Asks one Sentinel for its view of `name`; null when it does not answer in time or names nothing. */
async function askSentinel(options: ConnectorOptions, sentinel: { host: string; port: number }): Promise<SentinelView | null> {
  const client = new Redis({
    host: sentinel.host,
    port: sentinel.port,
    ...(options.sentinelUsername === undefined ? {} : { username: options.sentinelUsername }),
    ...(options.sentinelPassword === undefined ? {} : { password: options.sentinelPassword }),
    lazyConnect: true,
    enableReadyCheck: false,
    connectTimeout: SENTINEL_ASK_TIMEOUT_MS,
    commandTimeout: SENTINEL_ASK_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  })
  client.on('error', () => undefined)
  try {
    await client.connect()
    return readSentinelMaster(sentinel, await client.call('SENTINEL', 'MASTER', options.name ?? ''))
  } catch {
    return null
  } finally {
    client.disconnect()
  }
}

/** ioredis's Sentinel connector, asking the Sentinel with the newest view first (see the file's comment). */
export class NewestViewSentinelConnector extends SentinelConnector {
  private asking = false
  private abandoned = false

  /** ioredis constructs a custom connector with the connection's options, typed `unknown` there. */
  constructor(options: unknown) {
    super(options as ConnectorOptions)
  }

  override async connect(eventEmitter: ErrorEmitter): ReturnType<SentinelConnector['connect']> {
    this.dropStaleDetector()
    this.asking = true
    this.abandoned = false
    const sentinels = (this.options.sentinels ?? []).map((s) => ({ host: s.host ?? '127.0.0.1', port: s.port ?? 26379 }))
    const views = await Promise.all(sentinels.map((s) => askSentinel(this.options, s)))
    this.asking = false
    // Closed by its owner while the Sentinels were asked: end, as ioredis does when that happens during its own question.
    if (this.abandoned) throw new Error('Connection is closed.')
    const best = newestView(views.filter((v): v is SentinelView => v !== null))
    if (best !== null) this.askFirst(best.sentinel)
    return super.connect(eventEmitter)
  }

  override disconnect(): void {
    if (this.asking) this.abandoned = true
    super.disconnect()
  }

  /** Puts `sentinel` first in the order ioredis asks (its iterator rotates the list to the current entry). */
  private askFirst(sentinel: { host: string; port: number }): void {
    const it = this.sentinelIterator
    it.reset(false)
    for (let entry = it.next(); !entry.done; entry = it.next()) {
      if ((entry.value.host ?? '127.0.0.1') === sentinel.host && (entry.value.port ?? 26379) === sentinel.port) {
        it.reset(true)
        return
      }
    }
    it.reset(false)
  }

  /** Drops the failover detector of the stream that closed (ioredis replaces it only once a new stream connects). */
  private dropStaleDetector(): void {
    const self = this as unknown as { failoverDetector?: { cleanup(): void } | null }
    if (self.failoverDetector) {
      self.failoverDetector.cleanup()
      self.failoverDetector = null
    }
  }
}
