/**
 * PromQL for the ops tests: which metric names an expression selects, and which names may appear in the dashboards
 * and rules besides the service's own (`src/metrics/metric-names.ts`): series Prometheus adds itself, and the Redis
 * and MySQL exporters' metrics (docs/operations.md lists the exporters' ones under "Exporter metrics").
 */

/** Series Prometheus itself adds to every target (and `ALERTS`, the state of every alerting rule). */
export const PROMETHEUS_SERIES: ReadonlySet<string> = new Set([
  'up',
  'scrape_duration_seconds',
  'scrape_samples_scraped',
  'scrape_samples_post_metric_relabeling',
  'scrape_series_added',
  'ALERTS',
  'ALERTS_FOR_STATE',
])

/** Metrics of the exporters docker-compose.yml runs, that the dashboard and the alerts use, by exporter. */
export const EXPORTER_METRICS: Readonly<Record<string, readonly string[]>> = {
  'oliver006/redis_exporter': [
    'redis_up',
    'redis_memory_used_bytes',
    'redis_memory_max_bytes',
    'redis_connected_clients',
    'redis_commands_processed_total',
    'redis_evicted_keys_total',
    'redis_rejected_connections_total',
  ],
  'prom/mysqld-exporter': [
    'mysql_up',
    'mysql_global_status_threads_connected',
    'mysql_global_variables_max_connections',
    'mysql_global_status_queries',
    'mysql_global_status_slow_queries',
    'mysql_global_status_innodb_row_lock_waits',
  ],
  // HAProxy's own exporter (haproxy/haproxy.cfg, :8404/metrics): the database balancer's view of the Galera nodes.
  'haproxy (prometheus-exporter)': ['haproxy_server_status'],
}

/** Every exporter metric name of {@link EXPORTER_METRICS}. */
export const EXPORTER_METRIC_NAMES: ReadonlySet<string> = new Set(Object.values(EXPORTER_METRICS).flat())

/**
 * Metrics of `src/metrics/metric-names.ts` that another branch of this work implements (issue 10: the oldest
 * unstored event, the dependency gauges). The tests that require a listed metric to be exported skip these until they
 * land. Lead: empty this set when merging those branches.
 */
export const PENDING_METRICS: ReadonlySet<string> = new Set<string>()

const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset', 'and', 'or', 'unless', 'inf', 'nan'])

/** Metric names an expression selects (label names, functions, keywords, strings and durations removed). */
export function metricNamesOf(expr: string): string[] {
  let s = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""')
  s = s.replace(/\{[^}]*\}/g, ' ').replace(/\[[^\]]*\]/g, ' ')
  s = s.replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
  const names = new Set<string>()
  for (const m of s.matchAll(/(?<![0-9.a-zA-Z_:])[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const after = s.slice(m.index! + m[0].length).trimStart()
    if (after.startsWith('(') || PROMQL_WORDS.has(m[0].toLowerCase())) continue
    names.add(m[0])
  }
  return [...names]
}
