/**
 * Log volume of a worker: entries stored for the first time, by category and event type (the counter of
 * `Metric.logEntriesStored`). The event type label is bounded per process: each category names its first
 * MAX_EVENT_TYPE_LABELS types (as eventTypeLabel normalizes them) and counts any later one as `other`, so a game
 * server inventing a type per event makes no new series; a worker restart starts the list again.
 */
import type { Registry } from 'prom-client'
import { LOG_CATEGORIES } from '../queue/model/log-categories.js'
import { eventTypeLabel, labelValue, MAX_EVENT_TYPE_LABELS, Metric, OTHER } from './metric-names.js'
import { counterOf } from './registry.js'

/** What the worker's store reports. */
export interface LogVolumeMetrics {
  /** Counts the entries of one committed group that were stored for the first time (`created[i]` for `entries[i]`). */
  stored(entries: ReadonlyArray<{ category: string; eventType: string }>, created: readonly boolean[]): void
}

/** Raw event types remembered per category, so a busy worker normalizes each type once; past it, each time. */
const REMEMBERED_TYPES = 1000

/** Registers the log volume counter on `registry` and returns what feeds it. */
export function createLogVolumeMetrics(registry: Registry): LogVolumeMetrics {
  const counter = counterOf(registry, Metric.logEntriesStored)
  const categories = [...LOG_CATEGORIES, OTHER]
  // Per category label: the event type labels named so far, and the label each raw type was given.
  const named = new Map(categories.map((c) => [c, new Set<string>()]))
  const remembered = new Map(categories.map((c) => [c, new Map<string, string>()]))
  // Series that exist from the start, so rate() sees the first entries of a category.
  for (const category of LOG_CATEGORIES) counter.inc({ category, event_type: OTHER }, 0)

  function label(category: string, eventType: string): string {
    const seen = remembered.get(category)!
    const known = seen.get(eventType)
    if (known !== undefined) return known
    const names = named.get(category)!
    let value = eventTypeLabel(eventType)
    if (value !== OTHER && !names.has(value)) {
      if (names.size < MAX_EVENT_TYPE_LABELS) names.add(value)
      else value = OTHER
    }
    if (seen.size < REMEMBERED_TYPES) seen.set(eventType, value)
    return value
  }

  return {
    stored(entries, created) {
      const counts = new Map<string, { category: string; event_type: string; n: number }>()
      entries.forEach((e, i) => {
        if (created[i] !== true) return
        const category = labelValue(LOG_CATEGORIES, e.category)
        const eventType = label(category, e.eventType)
        const key = `${category}\u0000${eventType}`
        const count = counts.get(key)
        if (count === undefined) counts.set(key, { category, event_type: eventType, n: 1 })
        else count.n++
      })
      for (const { category, event_type, n } of counts.values()) counter.inc({ category, event_type }, n)
    },
  }
}
