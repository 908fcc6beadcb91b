/**
 * The front's FrontObserver on prom-client: requests, latency, errors, rate limiting, codes per request, bind outcomes,
 * and the read path (near cache hits, misses, evictions and entries; change feed lag and liveness).
 */
import type { Registry } from 'prom-client'
import type { FrontObserver, ReadPathState, StreamObserver } from '../http/front-observer.js'
import type { StreamHub } from '../streams/stream-hub.js'
import {
  BIND_OUTCOMES,
  ERROR_CODES,
  labelValue,
  LIMITED_ROUTES,
  MAX_KEY_LABELS,
  OTHER,
  Metric,
  ROUTES,
  statusLabel,
  STREAM_KINDS,
} from './metric-names.js'
import { counterOf, gaugeOf, histogramOf } from './registry.js'
import { createShortfallCounter } from './replication-metrics.js'

/** Registers the front's metrics on `registry` and returns the observer that feeds them. */
export function createFrontObserver(registry: Registry): FrontObserver & { streams(hub: StreamHub): StreamObserver } {
  const requests = counterOf(registry, Metric.httpRequests)
  const duration = histogramOf(registry, Metric.httpRequestDuration)
  const errors = counterOf(registry, Metric.httpErrors)
  const rateLimited = counterOf(registry, Metric.rateLimited)
  const codes = histogramOf(registry, Metric.codesPerRequest)
  const budgetExhausted = counterOf(registry, Metric.unknownCodeBudgetExhausted)
  const binds = counterOf(registry, Metric.bindOutcomes)
  const hits = counterOf(registry, Metric.nearCacheHits)
  const misses = counterOf(registry, Metric.nearCacheMisses)
  const evictions = counterOf(registry, Metric.nearCacheEvictions)
  const feedLag = histogramOf(registry, Metric.feedLag)
  const keyRequests = counterOf(registry, Metric.keyRequests)
  const keyLabels = new Set<string>()
  let readPath: (() => ReadPathState) | undefined
  gaugeOf(registry, Metric.nearCacheEntries, (gauge) => gauge.set(readPath?.().entries ?? 0))
  gaugeOf(registry, Metric.feedLive, (gauge) => gauge.set(readPath?.().feedLive === true ? 1 : 0))
  hits.inc(0)
  misses.inc(0)
  evictions.inc(0)
  // Series that exist from the start, so rate() sees their first increment instead of a series appearing at 1.
  for (const route of LIMITED_ROUTES) rateLimited.inc({ route }, 0)
  for (const status of BIND_OUTCOMES) binds.inc({ status }, 0)
  const shortfall = createShortfallCounter(registry)
  return {
    replicaShortfall: shortfall,
    streams: (hub) => createStreamObserver(registry, hub),
    request(route, status, seconds, error) {
      const r = labelValue(ROUTES, route)
      requests.inc({ route: r, status: statusLabel(status) })
      duration.observe({ route: r }, seconds)
      if (error !== undefined) errors.inc({ route: r, error: labelValue(ERROR_CODES, error) })
    },
    rateLimited(route) {
      rateLimited.inc({ route: labelValue(LIMITED_ROUTES, route) })
    },
    unknownCodeBudgetExhausted() {
      budgetExhausted.inc()
    },
    codesPerRequest(route, count) {
      codes.observe({ route: labelValue(ROUTES, route) }, count)
    },
    bindOutcome(status) {
      binds.inc({ status: labelValue(BIND_OUTCOMES, status) })
    },
    keyRequest(key, route, status) {
      if (!keyLabels.has(key) && keyLabels.size < MAX_KEY_LABELS) keyLabels.add(key)
      keyRequests.inc({ key: keyLabels.has(key) ? key : OTHER, route: labelValue(ROUTES, route), status: statusLabel(status) })
    },
    nearCache(hit, miss) {
      if (hit > 0) hits.inc(hit)
      if (miss > 0) misses.inc(miss)
    },
    feedLag(seconds) {
      feedLag.observe(seconds)
    },
    nearCacheEvicted() {
      evictions.inc()
    },
    readPathState(state) {
      readPath = state
    },
  }
}

/** Registers the stream metrics on `registry` and returns the observer that feeds them. */
/** The stream metrics of one registry, shared by every hub observed into it (a process may run more than one front). */
const streamMetrics = new WeakMap<Registry, { observer: StreamObserver; hubs: Set<StreamHub> }>()

function createStreamObserver(registry: Registry, hub: StreamHub): StreamObserver {
  const known = streamMetrics.get(registry)
  if (known !== undefined) {
    known.hubs.add(hub)
    return known.observer
  }
  const hubs = new Set<StreamHub>([hub])
  const open = gaugeOf(registry, Metric.streamsOpen)
  gaugeOf(registry, Metric.streamSubscriptions, (gauge) => {
    let total = 0
    for (const h of hubs) total += h.subscriptions
    gauge.set(total)
  })
  const sent = counterOf(registry, Metric.streamBlocksSent)
  const slow = counterOf(registry, Metric.streamSlowConsumers)
  const refused = counterOf(registry, Metric.streamRefusals)
  for (const kind of STREAM_KINDS) {
    open.set({ kind }, 0)
    sent.inc({ kind }, 0)
    slow.inc({ kind }, 0)
  }
  const observer: StreamObserver = {
    opened: (kind) => open.inc({ kind }),
    closed: (kind) => open.dec({ kind }),
    sent: (kind, count) => sent.inc({ kind }, count),
    slowConsumerCut: (kind) => slow.inc({ kind }),
    refused: (kind, reason) => refused.inc({ kind, reason: labelValue(ERROR_CODES, reason) }),
  }
  streamMetrics.set(registry, { observer, hubs })
  return observer
}
