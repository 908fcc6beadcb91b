/**
 * Every metric the service exports: name, help, labels, buckets and the process that registers it, in one list
 * (docs/operations.md mirrors it). Pure: no prom-client here. Label values are always taken from the closed
 * lists below (`labelValue` maps anything else to `other`), so no label can grow without bound: no IPs, codes,
 * user ids or raw paths.
 */
import { DEFAULT_RATE_LIMITS } from '../config.js'
import { ErrorCode } from '../http/model/error-codes.js'
import { QueueName } from '../queue/names.js'
import { LOG_CATEGORIES } from '../queue/model/log-categories.js'

/** Prefix of every service metric (the default Node metrics keep their standard names). */
export const METRIC_PREFIX = 'presence_link_'

/** Prometheus metric types used here. */
export type MetricKind = 'counter' | 'gauge' | 'histogram'

/**
 * Which process registers a metric; `front-primary` is the front's node:cluster primary (its own registry, served
 * beside its workers' aggregated metrics); `delivery` is the delivery consumer and `push` the push publisher, wherever
 * they run (a worker); `retention` is the log pruner of `presence-link worker`; `every` is every part.
 */
export type MetricProcess = 'front' | 'front-primary' | 'worker' | 'gateway' | 'delivery' | 'push' | 'retention' | 'every'

/** One metric's definition. */
export interface MetricSpec<L extends string = string> {
  readonly name: string
  readonly help: string
  readonly kind: MetricKind
  readonly labels: readonly L[]
  readonly process: MetricProcess
  readonly buckets?: readonly number[]
}

/** Request latency buckets in seconds: 100 µs (a cached lookup) to 10 s (a bind waiting on a slow upstream). */
export const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const

/** Job duration buckets in seconds: 1 ms (one insert) to 60 s (a delivery waiting out a 429). */
export const JOB_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] as const

/** Codes-per-request buckets: one player up to MAX_CODES_PER_REQUEST's default (200). */
export const CODES_PER_REQUEST_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200] as const

/** Change feed lag buckets in seconds: 250 µs (same host) to 5 s (a stalled subscriber or clock skew). */
export const FEED_LAG_BUCKETS = [0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const

/** Push lag buckets in seconds: a change written to Open Cloud's answer, 1 s window included (target p99 under 1.5 s). */
export const PUSH_LAG_BUCKETS = [0.1, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 5, 10, 30, 60] as const

const spec = <L extends string>(s: MetricSpec<L>): MetricSpec<L> => s

/** The metric list. */
export const Metric = {
  httpRequests: spec({
    name: 'presence_link_http_requests_total',
    help: 'HTTP requests answered, by route name and status code.',
    kind: 'counter',
    labels: ['route', 'status'],
    process: 'front',
  }),
  httpRequestDuration: spec({
    name: 'presence_link_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its response, by route name.',
    kind: 'histogram',
    labels: ['route'],
    process: 'front',
    buckets: LATENCY_BUCKETS,
  }),
  httpErrors: spec({
    name: 'presence_link_http_errors_total',
    help: 'Error responses by route name and error code (the ErrorCode list).',
    kind: 'counter',
    labels: ['route', 'error'],
    process: 'front',
  }),
  rateLimited: spec({
    name: 'presence_link_rate_limited_total',
    help: 'Requests rejected with 429 by the per-IP rate limit, by route name (log_events: log batches refused by the events budget).',
    kind: 'counter',
    labels: ['route'],
    process: 'front',
  }),
  unknownCodeBudgetExhausted: spec({
    name: 'presence_link_unknown_code_budget_exhausted_total',
    help: 'Clients (an IPv4 address or an IPv6 /64) refused for passing UNKNOWN_CODE_BUDGET, counted once per client and hour window across every front.',
    kind: 'counter',
    labels: [],
    process: 'front',
  }),
  codesPerRequest: spec({
    name: 'presence_link_codes_per_request',
    help: 'Codes asked for in one callbacks or rpc request.',
    kind: 'histogram',
    labels: ['route'],
    process: 'front',
    buckets: CODES_PER_REQUEST_BUCKETS,
  }),
  bindOutcomes: spec({
    name: 'presence_link_bind_outcomes_total',
    help: 'Finished binds by outcome (the spec status; error_<reason> for errors).',
    kind: 'counter',
    labels: ['status'],
    process: 'front',
  }),
  queueJobs: spec({
    name: 'presence_link_queue_jobs',
    help: 'Jobs in each BullMQ queue by state, read from Redis at scrape time (global: every worker process reports the same value).',
    kind: 'gauge',
    labels: ['queue', 'state'],
    process: 'worker',
  }),
  jobDuration: spec({
    name: 'presence_link_job_duration_seconds',
    help: 'Time one job attempt spent in its processor, by queue.',
    kind: 'histogram',
    labels: ['queue'],
    process: 'worker',
    buckets: JOB_DURATION_BUCKETS,
  }),
  jobs: spec({
    name: 'presence_link_jobs_total',
    help: 'Job attempts finished by this process, by queue and result (completed or failed; a failed attempt may be retried).',
    kind: 'counter',
    labels: ['queue', 'result'],
    process: 'worker',
  }),
  gatewayShardReady: spec({
    name: 'presence_link_gateway_shard_ready',
    help: 'Gateway shard status: 1 when the shard is ready, 0 otherwise.',
    kind: 'gauge',
    labels: ['shard'],
    process: 'gateway',
  }),
  gatewayShardPing: spec({
    name: 'presence_link_gateway_shard_ping_seconds',
    help: 'Last heartbeat round trip of each gateway shard, in seconds.',
    kind: 'gauge',
    labels: ['shard'],
    process: 'gateway',
  }),
  presenceEntries: spec({
    name: 'presence_link_presence_entries',
    help: 'Users with a stored presence (length of the Redis presence hash, global), read at scrape time.',
    kind: 'gauge',
    labels: [],
    process: 'gateway',
  }),
  deliveries: spec({
    name: 'presence_link_deliveries_total',
    help: 'Delivery requests to chat destinations (one per message sent or attempted), by destination and result.',
    kind: 'counter',
    labels: ['destination', 'result'],
    process: 'delivery',
  }),
  deliveredEntries: spec({
    name: 'presence_link_delivered_entries_total',
    help: 'Log entries delivered to their chat destination, by destination.',
    kind: 'counter',
    labels: ['destination'],
    process: 'delivery',
  }),
  destinationDisabled: spec({
    name: 'presence_link_delivery_destination_disabled',
    help: 'Delivery destination status: 1 when disabled after a 401, 403 or 404 (its entries wait), 0 when active.',
    kind: 'gauge',
    labels: ['destination'],
    process: 'delivery',
  }),
  digestMode: spec({
    name: 'presence_link_delivery_digest_mode',
    help: 'Delivery digest mode: 1 while the destination has fallen behind and gets digest messages instead of one embed per entry (set by the process posting it), else 0.',
    kind: 'gauge',
    labels: ['destination'],
    process: 'delivery',
  }),
  digestedEntries: spec({
    name: 'presence_link_delivery_digested_entries_total',
    help: 'Log entries summarized in a digest message instead of posted one by one, by destination (all stay stored).',
    kind: 'counter',
    labels: ['destination'],
    process: 'delivery',
  }),
  buildInfo: spec({
    name: 'presence_link_build_info',
    help: 'Always 1; the labels say which build runs: version (package.json), commit (recorded at build time, or unknown) and node (the Node.js version).',
    kind: 'gauge',
    labels: ['version', 'commit', 'node'],
    process: 'every',
  }),
  oldestUnstoredEventAge: spec({
    name: 'presence_link_oldest_unstored_event_age_seconds',
    help: 'Age of the oldest job of a queue accepted but not yet done (waiting, delayed, active or failed), in seconds; 0 when none. Read from Redis at scrape time (global: use max).',
    kind: 'gauge',
    labels: ['queue'],
    process: 'worker',
  }),
  reconcilerRepairs: spec({
    name: 'presence_link_reconciler_repairs_total',
    help: 'Redis copy entries the reconciler rewrote or removed because they disagreed with MySQL, by copy (codes, holders, apikeys).',
    kind: 'counter',
    labels: ['copy'],
    process: 'worker',
  }),
  dependencyUp: spec({
    name: 'presence_link_dependency_up',
    help: 'Whether this process reaches a dependency (1) or not (0), as its readiness check last saw it; the front reports the minimum over its workers.',
    kind: 'gauge',
    labels: ['dependency'],
    process: 'every',
  }),
  streamsOpen: spec({
    name: 'presence_link_streams_open',
    help: 'Open streams on the front, by kind (sse: GET /api/v1/stream, ws: the WebSocket).',
    kind: 'gauge',
    labels: ['kind'],
    process: 'front',
  }),
  streamSubscriptions: spec({
    name: 'presence_link_stream_subscriptions',
    help: 'Code subscriptions held by the front (codes summed over open streams), read at scrape time.',
    kind: 'gauge',
    labels: [],
    process: 'front',
  }),
  streamBlocksSent: spec({
    name: 'presence_link_stream_blocks_sent_total',
    help: 'Blocks sent on streams (the first block of each code and every change), by kind.',
    kind: 'counter',
    labels: ['kind'],
    process: 'front',
  }),
  streamSlowConsumers: spec({
    name: 'presence_link_stream_slow_consumers_total',
    help: 'Streams cut off because more than STREAM_MAX_BUFFERED_BYTES were waiting to be sent, by kind.',
    kind: 'counter',
    labels: ['kind'],
    process: 'front',
  }),
  streamRefusals: spec({
    name: 'presence_link_stream_refusals_total',
    help: 'Streams and subscriptions refused, by kind and error code (too_many_streams, too_many_codes, stream_capacity, unknown_code_budget, ...).',
    kind: 'counter',
    labels: ['kind', 'reason'],
    process: 'front',
  }),
  nearCacheHits: spec({
    name: 'presence_link_near_cache_hits_total',
    help: 'Codes of callbacks, rpc and stream lookups answered from the front worker\'s near cache.',
    kind: 'counter',
    labels: [],
    process: 'front',
  }),
  nearCacheMisses: spec({
    name: 'presence_link_near_cache_misses_total',
    help: 'Codes of callbacks, rpc and stream lookups read from Redis (not cached, or the change feed not live).',
    kind: 'counter',
    labels: [],
    process: 'front',
  }),
  nearCacheEvictions: spec({
    name: 'presence_link_near_cache_evictions_total',
    help: 'Near cache entries pushed out by NEAR_CACHE_ENTRIES (least recently used first).',
    kind: 'counter',
    labels: [],
    process: 'front',
  }),
  nearCacheEntries: spec({
    name: 'presence_link_near_cache_entries',
    help: 'Codes held in the near caches (summed over front workers), read at scrape time.',
    kind: 'gauge',
    labels: [],
    process: 'front',
  }),
  feedLag: spec({
    name: 'presence_link_feed_lag_seconds',
    help: 'Time from a change feed message\'s write (the writer\'s clock) to its arrival at a front worker.',
    kind: 'histogram',
    labels: [],
    process: 'front',
    buckets: FEED_LAG_BUCKETS,
  }),
  frontWorkerRestarts: spec({
    name: 'presence_link_front_worker_restarts_total',
    help: 'Front cluster workers that died and were restarted by the front primary (counted at the death; the fork follows after a pause of 0.5 s doubling to 30 s while they keep dying).',
    kind: 'counter',
    labels: [],
    process: 'front-primary',
  }),
  keyRequests: spec({
    name: 'presence_link_key_requests_total',
    help: 'Requests that presented a valid API key, by key name, route and status code (429s before the key check are counted when the key is valid); at most MAX_KEY_LABELS key names per process, the rest as other.',
    kind: 'counter',
    labels: ['key', 'route', 'status'],
    process: 'front',
  }),
  pushPublished: spec({
    name: 'presence_link_push_published_total',
    help: 'Messages Open Cloud accepted, by kind (blocks: the changed blocks; codes: the changed codes only, when the blocks did not fit 1 kB).',
    kind: 'counter',
    labels: ['kind'],
    process: 'push',
  }),
  pushCoalesced: spec({
    name: 'presence_link_push_coalesced_total',
    help: 'Block changes that did not cost a message of their own: merged with a later change of the same code, or sent in a message with others.',
    kind: 'counter',
    labels: [],
    process: 'push',
  }),
  pushDropped: spec({
    name: 'presence_link_push_dropped_total',
    help: 'Block changes given up, by reason (refused: Open Cloud refused the message; no_target: the universe has no usable Open Cloud key).',
    kind: 'counter',
    labels: ['reason'],
    process: 'push',
  }),
  pushFailures: spec({
    name: 'presence_link_push_failures_total',
    help: 'Publishes that failed, by reason (rate_limited: a 429, waited out; server_error: 5xx and network: no answer, retried with backoff; refused: another 4xx).',
    kind: 'counter',
    labels: ['reason'],
    process: 'push',
  }),
  pushLag: spec({
    name: 'presence_link_push_lag_seconds',
    help: 'Time from the write of the oldest change a message carries (the writer\'s clock) to Open Cloud accepting the message.',
    kind: 'histogram',
    labels: [],
    process: 'push',
    buckets: PUSH_LAG_BUCKETS,
  }),
  pushUniverses: spec({
    name: 'presence_link_push_universes',
    help: 'Universes whose pushes this process leads (holds the lease of), read at scrape time.',
    kind: 'gauge',
    labels: [],
    process: 'push',
  }),
  pushPending: spec({
    name: 'presence_link_push_pending_codes',
    help: 'Changed codes waiting to be published (held back by a budget or a backoff), read at scrape time.',
    kind: 'gauge',
    labels: [],
    process: 'push',
  }),
  logPruned: spec({
    name: 'presence_link_log_pruned_entries_total',
    help: 'Log entries deleted by the pruner because they were stored more than LOG_RETENTION_DAYS ago.',
    kind: 'counter',
    labels: [],
    process: 'retention',
  }),
  logPruneKept: spec({
    name: 'presence_link_log_prune_kept_entries',
    help: 'Entries older than LOG_RETENTION_DAYS the last prune of this process kept, by reason (infraction: the evidence of an infraction; pending: not yet delivered).',
    kind: 'gauge',
    labels: ['reason'],
    process: 'retention',
  }),
  logPruneLastSuccess: spec({
    name: 'presence_link_log_prune_last_success_timestamp_seconds',
    help: 'Unix time at which the last complete prune of this process ended (0: none since it started).',
    kind: 'gauge',
    labels: [],
    process: 'retention',
  }),
  logPruneFailures: spec({
    name: 'presence_link_log_prune_failures_total',
    help: 'Prunes that failed (MySQL or Redis unreachable, a statement refused); the next one is tried a check interval later.',
    kind: 'counter',
    labels: [],
    process: 'retention',
  }),
  redisWriteShortfalls: spec({
    name: 'presence_link_redis_write_shortfalls_total',
    help: 'Writes not confirmed by REDIS_WRITE_REPLICAS replicas within REDIS_WRITE_TIMEOUT_MS, by write (log and bind: answered 503; audit: reported by the gateway, logged as not confirmed).',
    kind: 'counter',
    labels: ['write'],
    process: 'front',
  }),
  redisReplicas: spec({
    name: 'presence_link_redis_replicas',
    help: 'Replicas connected to the Redis primary and streaming (INFO replication, state online), read at scrape time (global: every worker process reports the same value).',
    kind: 'gauge',
    labels: [],
    process: 'worker',
  }),
  redisReplicaLag: spec({
    name: 'presence_link_redis_replica_lag_seconds',
    help: 'Seconds since the Redis primary last heard from its slowest online replica (INFO replication lag), read at scrape time; -1 when no replica is online.',
    kind: 'gauge',
    labels: [],
    process: 'worker',
  }),
  redisWritesRefused: spec({
    name: 'presence_link_redis_writes_refused',
    help: '1 while the Redis primary refuses writes because fewer replicas are in sync than its min-replicas-to-write (NOREPLICAS), else 0; read at scrape time.',
    kind: 'gauge',
    labels: [],
    process: 'worker',
  }),
  redisPrimaryChanges: spec({
    name: 'presence_link_redis_primary_changes_total',
    help: 'Times this process found a new Redis primary (its replication id changed: a Sentinel failover, or a primary restarted empty), checked at each reconnect and scrape.',
    kind: 'counter',
    labels: [],
    process: 'worker',
  }),
  logEntriesStored: spec({
    name: 'presence_link_log_entries_stored_total',
    help: 'Log entries this worker stored for the first time (log and audit consumers), by category and event type: the type lowercased, other characters than a-z, 0-9 and _ as _, at most 40; the first MAX_EVENT_TYPE_LABELS types of each category in this process keep their name, later ones count as other.',
    kind: 'counter',
    labels: ['category', 'event_type'],
    process: 'worker',
  }),
  feedLive: spec({
    name: 'presence_link_feed_live',
    help: 'Front workers whose change feed is live (summed over workers: equals FRONT_WORKERS when healthy), read at scrape time.',
    kind: 'gauge',
    labels: [],
    process: 'front',
  }),
} as const

/** The kinds of stream (the label `kind` of the stream metrics). */
export const STREAM_KINDS = ['sse', 'ws'] as const

/** Every metric definition, in list order. */
export const ALL_METRICS: readonly MetricSpec[] = Object.values(Metric)

/** Routes with a rate limit: every budget of the rate-limit configuration (`log_events` is the log route's events budget). */
export const LIMITED_ROUTES: readonly string[] = Object.keys(DEFAULT_RATE_LIMITS)

/** Route names of the front (the label `route`); anything else is counted as `other`. */
export const ROUTES: readonly string[] = [...LIMITED_ROUTES.filter((r) => r !== 'log_events'), 'healthz', 'readyz', 'not_found']

/** Bind outcomes (the label `status` of bind outcomes). */
export const BIND_OUTCOMES = [
  'bound',
  'already_bound',
  'not_found',
  'banned',
  'invalidated',
  'error_unknown_username',
  'error_resolution_failed',
] as const

/** Error codes (the label `error`). */
export const ERROR_CODES: readonly string[] = Object.values(ErrorCode)

/** Queues (the label `queue`). */
export const QUEUES: readonly string[] = Object.values(QueueName)

/** Queue states reported by the queue gauge. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const

/** One of the queue states. */
export type QueueState = (typeof QUEUE_STATES)[number]

/** Results of a job attempt. */
export const JOB_RESULTS = ['completed', 'failed'] as const

/** Delivery destinations (the label `destination`): the log categories, never a URL or channel id. */
export const DELIVERY_DESTINATIONS: readonly string[] = LOG_CATEGORIES

/** Results of one delivery request. */
export const DELIVERY_RESULTS = ['sent', 'rate_limited', 'failed', 'disabled'] as const

/** One delivery result. */
export type DeliveryResult = (typeof DELIVERY_RESULTS)[number]

/** Kinds of push message (the label `kind` of the published metric). */
export const PUSH_KINDS = ['blocks', 'codes'] as const

/** Why push changes were dropped (the label `reason`). */
export const PUSH_DROP_REASONS = ['refused', 'no_target'] as const

/** Which write a replica confirmation was for (the label `write`). */
export const CONFIRMED_WRITES = ['log', 'bind', 'audit'] as const

/** Why a publish failed (the label `reason`). */
export const PUSH_FAILURE_REASONS = ['rate_limited', 'server_error', 'network', 'refused'] as const

/** Why an old log entry was kept (the label `reason` of the kept gauge). */
export const PRUNE_KEPT_REASONS = ['infraction', 'pending'] as const

/** Distinct API key names one process labels; further names are counted as `other` (keys are few, but names are the operator's). */
export const MAX_KEY_LABELS = 50

/**
 * Distinct event types one worker process labels per category; later ones are counted as `other`. Event types are
 * free labels from game servers: without a bound, one server could make a series per event it sends.
 */
export const MAX_EVENT_TYPE_LABELS = 50

/** Longest event type label. */
export const EVENT_TYPE_LABEL_LENGTH = 40

/** An event type as a label: lowercased, runs of other characters than a-z, 0-9 and _ as one _, cut; `other` when nothing is left. */
export function eventTypeLabel(eventType: string): string {
  const label = eventType
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, EVENT_TYPE_LABEL_LENGTH)
  return label === '' ? OTHER : label
}

/** Dependencies a readiness check looks at (the label `dependency`). */
export const DEPENDENCIES = ['redis', 'mysql', 'discord'] as const

/** One dependency. */
export type Dependency = (typeof DEPENDENCIES)[number]

/** Label value for anything outside a closed list. */
export const OTHER = 'other'

/** `value` when it is in `allowed`, else `other`. */
export function labelValue(allowed: readonly string[], value: string): string {
  return allowed.includes(value) ? value : OTHER
}

/** An HTTP status as a label: the three digits, or `other`. */
export function statusLabel(status: number): string {
  return Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : OTHER
}

/** A shard id as a label (shard ids are bounded by SHARD_COUNT). */
export function shardLabel(shard: number): string {
  return Number.isInteger(shard) && shard >= 0 ? String(shard) : OTHER
}

/** The sample names a metric produces in the text format (a histogram's `_bucket`, `_sum` and `_count`). */
export function seriesNames(metric: Pick<MetricSpec, 'name' | 'kind'>): string[] {
  return metric.kind === 'histogram' ? [`${metric.name}_bucket`, `${metric.name}_sum`, `${metric.name}_count`] : [metric.name]
}
