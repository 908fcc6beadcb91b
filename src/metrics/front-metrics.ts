/** The front's FrontObserver on prom-client: requests, latency, errors, rate limiting, codes per request, bind outcomes. */
import type { Registry } from 'prom-client'
import type { FrontObserver } from '../http/front-app.js'
import {
  BIND_OUTCOMES,
  ERROR_CODES,
  labelValue,
  LIMITED_ROUTES,
  Metric,
  ROUTES,
  statusLabel,
} from './metric-names.js'
import { counterOf, histogramOf } from './registry.js'

/** Registers the front's metrics on `registry` and returns the observer that feeds them. */
export function createFrontObserver(registry: Registry): FrontObserver {
  const requests = counterOf(registry, Metric.httpRequests)
  const duration = histogramOf(registry, Metric.httpRequestDuration)
  const errors = counterOf(registry, Metric.httpErrors)
  const rateLimited = counterOf(registry, Metric.rateLimited)
  const codes = histogramOf(registry, Metric.codesPerRequest)
  const budgetExhausted = counterOf(registry, Metric.unknownCodeBudgetExhausted)
  const binds = counterOf(registry, Metric.bindOutcomes)
  // Series that exist from the start, so rate() sees their first increment instead of a series appearing at 1.
  for (const route of LIMITED_ROUTES) rateLimited.inc({ route }, 0)
  for (const status of BIND_OUTCOMES) binds.inc({ status }, 0)
  return {
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
  }
}
