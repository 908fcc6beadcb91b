/**
 * Delivery metrics, registered by the process that runs the delivery consumer (on the same registry as its other
 * consumer metrics). Destinations are the log categories, never a webhook URL or channel id. Usage:
 *
 *   const delivery = createDeliveryMetrics(registry)
 *   delivery.request('moderation', 'sent'); delivery.entriesDelivered('moderation', batch.length)
 *   delivery.request('server', 'rate_limited')           // a 429 that will be waited out
 *   delivery.setDisabled('ingame', true)                  // after a 401/403/404; false on `destinations retry`
 *   delivery.setDigestMode('ingame', true); delivery.entriesDigested('ingame', 1834)  // the destination fell behind
 */
import type { Registry } from 'prom-client'
import { DELIVERY_DESTINATIONS, DELIVERY_RESULTS, labelValue, Metric, type DeliveryResult } from './metric-names.js'
import { counterOf, gaugeOf } from './registry.js'

/** Handles the delivery consumer calls. */
export interface DeliveryMetrics {
  /** Counts one request (message) to a destination by its result. */
  request(destination: string, result: DeliveryResult): void
  /** Counts log entries that reached their destination (a batched message carries several). */
  entriesDelivered(destination: string, count: number): void
  /** Sets whether a destination is disabled. */
  setDisabled(destination: string, disabled: boolean): void
  /** Sets whether a destination is in digest mode (it fell behind). */
  setDigestMode(destination: string, on: boolean): void
  /** Counts log entries summarized in a digest message. */
  entriesDigested(destination: string, count: number): void
}

/** Registers the delivery metrics on `registry`. */
export function createDeliveryMetrics(registry: Registry): DeliveryMetrics {
  const requests = counterOf(registry, Metric.deliveries)
  const entries = counterOf(registry, Metric.deliveredEntries)
  const disabled = gaugeOf(registry, Metric.destinationDisabled)
  const digestMode = gaugeOf(registry, Metric.digestMode)
  const digested = counterOf(registry, Metric.digestedEntries)
  for (const destination of DELIVERY_DESTINATIONS) {
    entries.inc({ destination }, 0)
    digested.inc({ destination }, 0)
    digestMode.set({ destination }, 0)
    for (const result of DELIVERY_RESULTS) requests.inc({ destination, result }, 0)
  }
  return {
    request(destination, result) {
      requests.inc({ destination: labelValue(DELIVERY_DESTINATIONS, destination), result: labelValue(DELIVERY_RESULTS, result) })
    },
    entriesDelivered(destination, count) {
      if (count > 0) entries.inc({ destination: labelValue(DELIVERY_DESTINATIONS, destination) }, count)
    },
    setDisabled(destination, isDisabled) {
      disabled.set({ destination: labelValue(DELIVERY_DESTINATIONS, destination) }, isDisabled ? 1 : 0)
    },
    setDigestMode(destination, on) {
      digestMode.set({ destination: labelValue(DELIVERY_DESTINATIONS, destination) }, on ? 1 : 0)
    },
    entriesDigested(destination, count) {
      if (count > 0) digested.inc({ destination: labelValue(DELIVERY_DESTINATIONS, destination) }, count)
    },
  }
}
