/**
 * The only module that reads process.env. Every variable is validated at once; a bad environment
 * lists every problem and the process exits non-zero (see docs/configuration.md).
 */
import { cpus } from 'node:os'
import * as v from 'valibot'
import { trustProxyProblem } from './http/model/client-key.js'
import { parseDestinationTarget } from './delivery/model/destination.js'
import { MAX_RETENTION_DAYS, retentionDaysProblem } from './retention/model/prune-plan.js'

const intString = (name: string, min: number, max: number) =>
  v.pipe(
    v.string(),
    v.trim(),
    v.regex(/^\d+$/, `${name} must be a whole number`),
    v.transform(Number),
    v.number(),
    v.minValue(min, `${name} must be at least ${min}`),
    v.maxValue(max, `${name} must be at most ${max}`),
  )

const urlString = (name: string, protocols: string[]) =>
  v.pipe(
    v.string(),
    v.trim(),
    v.check((s) => {
      try {
        return protocols.includes(new URL(s).protocol)
      } catch {
        return false
      }
    }, `${name} must be a URL with protocol ${protocols.join(' or ')}`),
  )

const onOff = (name: string) =>
  v.pipe(
    v.string(),
    v.trim(),
    v.toLowerCase(),
    v.picklist(['on', 'off', 'true', 'false', '1', '0', ''], `${name} must be on or off`),
    v.transform((s) => s === 'on' || s === 'true' || s === '1'),
  )

const list = v.pipe(
  v.string(),
  v.transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x.length > 0),
  ),
)

const snowflakeList = (name: string) =>
  v.pipe(list, v.check((xs) => xs.every((x) => /^\d{1,20}$/.test(x)), `${name} must be a comma list of Discord ids`))

/**
 * Rate limits: `off`, or overrides like `bind=10/60,log=30/60,callbacks=100/10,rpc=100/10` (points/seconds);
 * `log_events` counts the events of log batches (one per event) rather than requests; a single event spends only `log`.
 */
const RateLimitsSchema = v.pipe(
  v.string(),
  v.trim(),
  v.check(
    (s) => s === '' || s === 'off' || /^(\s*(bind|log|log_events|callbacks|rpc|info|safety|push|players)=\d+\/\d+\s*)(,\s*(bind|log|log_events|callbacks|rpc|info|safety|push|players)=\d+\/\d+\s*)*$/.test(s),
    'RATE_LIMITS must be off or a comma list like bind=10/60,log=30/60,callbacks=100/10,rpc=100/10',
  ),
  v.transform((s): RateLimits | null => {
    if (s === 'off') return null
    const limits: RateLimits = { ...DEFAULT_RATE_LIMITS }
    for (const part of s.split(',').filter((p) => p.trim() !== '')) {
      const [name, spec] = part.trim().split('=') as [keyof RateLimits, string]
      const [points, seconds] = spec.split('/').map(Number) as [number, number]
      limits[name] = { points, seconds }
    }
    return limits
  }),
)

/** One rate limit: `points` requests per `seconds` per client IP. */
export interface RateLimit {
  points: number
  seconds: number
}

/**
 * The four limited routes of the spec, info and safety (the log's numbers by default), push subscriptions and players;
 * and `log_events`, the events budget of the log route (points are events: a batch of N spends N).
 */
export interface RateLimits {
  bind: RateLimit
  log: RateLimit
  log_events: RateLimit
  callbacks: RateLimit
  rpc: RateLimit
  info: RateLimit
  safety: RateLimit
  push: RateLimit
  players: RateLimit
}

/** The spec's limits (Limits table). */
export const DEFAULT_RATE_LIMITS: RateLimits = Object.freeze({
  bind: { points: 10, seconds: 60 },
  log: { points: 30, seconds: 60 },
  // 30 batches of 100 a minute: a game server's log requests, full.
  log_events: { points: 3000, seconds: 60 },
  callbacks: { points: 100, seconds: 10 },
  rpc: { points: 100, seconds: 10 },
  info: { points: 30, seconds: 60 },
  safety: { points: 30, seconds: 60 },
  push: { points: 60, seconds: 60 },
  players: { points: 60, seconds: 60 },
})

const EnvEntries = v.object({
  PORT: v.optional(intString('PORT', 0, 65535), '8080'),
  // No default here: it depends on NODE_ENV (hostDefault).
  HOST: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, 'HOST must not be empty'))),
  FRONT_WORKERS: v.optional(intString('FRONT_WORKERS', 1, 256), String(cpus().length)),
  REDIS_URL: v.optional(urlString('REDIS_URL', ['redis:', 'rediss:']), 'redis://127.0.0.1:6379'),
  REDIS_PREFIX: v.optional(
    v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]{1,40}$/, 'REDIS_PREFIX must be 1-40 characters of letters, digits, _ . -')),
    'pl',
  ),
  // Sentinel (issue 22): no defaults; read together in redisTargetOf, which refuses ambiguous combinations.
  REDIS_SENTINELS: v.optional(v.pipe(v.string(), v.trim())),
  REDIS_SENTINEL_NAME: v.optional(v.pipe(v.string(), v.trim())),
  REDIS_SENTINEL_PASSWORD: v.optional(v.string()),
  REDIS_PASSWORD: v.optional(v.string()),
  REDIS_WRITE_REPLICAS: v.optional(intString('REDIS_WRITE_REPLICAS', 0, 16), '0'),
  REDIS_WRITE_TIMEOUT_MS: v.optional(intString('REDIS_WRITE_TIMEOUT_MS', 10, 60000), '1000'),
  DATABASE_URL: v.optional(urlString('DATABASE_URL', ['mysql:', 'mariadb:']), 'mysql://root@127.0.0.1:3306/presence_link'),
  GAME_PLATFORM_NAME: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, 'GAME_PLATFORM_NAME must not be empty')), 'Roblox'),
  TRUST_PROXY: v.optional(list, ''),
  // 600 codes of 4 characters and their separators fit the front's longest request target (MAX_TARGET_BYTES, 3072).
  MAX_CODES_PER_REQUEST: v.optional(intString('MAX_CODES_PER_REQUEST', 1, 600), '200'),
  API_KEY: v.optional(v.pipe(v.string(), v.check((s) => s === '' || s.length >= 32, 'API_KEY must be at least 32 characters')), ''),
  ROBLOX_USERS_API: v.optional(urlString('ROBLOX_USERS_API', ['http:', 'https:']), 'https://users.roblox.com'),
  RATE_LIMITS: v.optional(RateLimitsSchema, ''),
  UNKNOWN_CODE_BUDGET: v.optional(intString('UNKNOWN_CODE_BUDGET', 0, 1000000), '1000'),
  NEAR_CACHE_ENTRIES: v.optional(intString('NEAR_CACHE_ENTRIES', 0, 10000000), '100000'),
  BIND_TIMEOUT_MS: v.optional(intString('BIND_TIMEOUT_MS', 100, 60000), '5000'),
  BODY_TIMEOUT_MS: v.optional(intString('BODY_TIMEOUT_MS', 50, 60000), '2000'),
  PART_START_TIMEOUT_MS: v.optional(intString('PART_START_TIMEOUT_MS', 1000, 3600000), '60000'),
  STREAM_MAX_CODES: v.optional(intString('STREAM_MAX_CODES', 1, 10000), '200'),
  STREAM_MAX_PER_CLIENT: v.optional(intString('STREAM_MAX_PER_CLIENT', 1, 1000000), '1000'),
  STREAM_MAX_SUBSCRIPTIONS: v.optional(intString('STREAM_MAX_SUBSCRIPTIONS', 1, 100000000), '2000000'),
  STREAM_MAX_BUFFERED_BYTES: v.optional(intString('STREAM_MAX_BUFFERED_BYTES', 16384, 1073741824), '524288'),
  STREAM_HEARTBEAT_MS: v.optional(intString('STREAM_HEARTBEAT_MS', 100, 300000), '15000'),
  LOG_LEVEL: v.optional(v.picklist(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'LOG_LEVEL must be a pino level'), 'info'),
  METRICS_PORT: v.optional(intString('METRICS_PORT', 0, 65535), '9464'),
  WORKER_METRICS_PORT: v.optional(intString('WORKER_METRICS_PORT', 0, 65535), '9465'),
  GATEWAY_METRICS_PORT: v.optional(intString('GATEWAY_METRICS_PORT', 0, 65535), '9466'),
  DISCORD_TOKEN: v.optional(v.string(), ''),
  DISCORD_API: v.optional(v.pipe(v.string(), v.trim()), ''),
  SHARD_COUNT: v.optional(intString('SHARD_COUNT', 1, 4096), '1'),
  SHARD_IDS: v.optional(v.pipe(list, v.check((xs) => xs.every((x) => /^\d+$/.test(x)), 'SHARD_IDS must be a comma list of shard numbers')), ''),
  GUILD_WHITELIST: v.optional(snowflakeList('GUILD_WHITELIST'), ''),
  STAFF_GUILD_IDS: v.optional(snowflakeList('STAFF_GUILD_IDS'), ''),
  STAFF_ROLE_ID: v.optional(v.pipe(v.string(), v.trim(), v.regex(/^(\d{1,20})?$/, 'STAFF_ROLE_ID must be a Discord id')), ''),
  MESSAGE_CONTENT: v.optional(onOff('MESSAGE_CONTENT'), 'off'),
  COMMAND_SCOPE: v.optional(v.picklist(['guild', 'global'], 'COMMAND_SCOPE must be guild or global'), 'guild'),
  MESSAGE_RETENTION_DAYS: v.optional(intString('MESSAGE_RETENTION_DAYS', 0, 365), '7'),
  FORGET_AFTER_LEAVE_DAYS: v.optional(intString('FORGET_AFTER_LEAVE_DAYS', 1, 365), '30'),
  SANDBOX_PORT: v.optional(intString('SANDBOX_PORT', 0, 65535), '8090'),
  LOG_DESTINATION_SERVER: v.optional(v.pipe(v.string(), v.trim()), ''),
  LOG_DESTINATION_INGAME: v.optional(v.pipe(v.string(), v.trim()), ''),
  LOG_DESTINATION_MODERATION: v.optional(v.pipe(v.string(), v.trim()), ''),
  DELIVERY_RATE_LIMIT: v.optional(intString('DELIVERY_RATE_LIMIT', 1, 50), '45'),
  DELIVERY_BATCH_MS: v.optional(intString('DELIVERY_BATCH_MS', 0, 10000), '1000'),
  DELIVERY_POLL_MS: v.optional(intString('DELIVERY_POLL_MS', 20, 10000), '250'),
  DELIVERY_DIGEST_BACKLOG: v.optional(intString('DELIVERY_DIGEST_BACKLOG', 0, 1_000_000), '1000'),
  DELIVERY_DIGEST_AFTER_MS: v.optional(intString('DELIVERY_DIGEST_AFTER_MS', 0, 86_400_000), '30000'),
  DELIVERY_DIGEST_EVERY_MS: v.optional(intString('DELIVERY_DIGEST_EVERY_MS', 1000, 600_000), '10000'),
  // 0 keeps log entries forever; otherwise at least MIN_RETENTION_DAYS (checked in parseConfig).
  LOG_RETENTION_DAYS: v.optional(intString('LOG_RETENTION_DAYS', 0, MAX_RETENTION_DAYS), '90'),
  LOG_PRUNE_BATCH_SIZE: v.optional(intString('LOG_PRUNE_BATCH_SIZE', 1, 10000), '1000'),
  LOG_PRUNE_PAUSE_MS: v.optional(intString('LOG_PRUNE_PAUSE_MS', 0, 60000), '100'),
  LOG_PRUNE_INTERVAL_SECONDS: v.optional(intString('LOG_PRUNE_INTERVAL_SECONDS', 1, 604800), '3600'),
  SAFETY_REVIEW_INFRACTIONS: v.optional(intString('SAFETY_REVIEW_INFRACTIONS', 0, 100000), '1'),
  SAFETY_UNSAFE_INFRACTIONS: v.optional(intString('SAFETY_UNSAFE_INFRACTIONS', 0, 100000), '3'),
  NODE_ENV: v.optional(v.pipe(v.string(), v.trim()), ''),
  SANDBOX: v.optional(v.pipe(v.string(), v.trim(), v.toLowerCase(), v.picklist(['on', 'off', 'auto'], 'SANDBOX must be on, off or auto')), 'auto'),
  // Required once a push target exists (checked by `push add` and by the worker's push consumer at start, which see MySQL).
  PUSH_SECRET: v.optional(v.pipe(v.string(), v.check((s) => s === '' || s.length >= 32, 'PUSH_SECRET must be at least 32 characters (openssl rand -hex 32 makes one)')), ''),
  // Unset: Roblox's, or the sandbox's in sandbox mode (openCloudApiDefault), so `push test` there never reaches Roblox.
  OPEN_CLOUD_API: v.optional(urlString('OPEN_CLOUD_API', ['http:', 'https:'])),
  PUSH_WINDOW_MS: v.optional(intString('PUSH_WINDOW_MS', 100, 10000), '1000'),
  PUSH_SUBSCRIPTION_SECONDS: v.optional(intString('PUSH_SUBSCRIPTION_SECONDS', 10, 3600), '120'),
  // Roblox allows 5,000 publishes per minute per key owner (every key of that user or group together).
  PUSH_PUBLISHES_PER_MINUTE: v.optional(intString('PUSH_PUBLISHES_PER_MINUTE', 1, 5000), '5000'),
})

type DestinationVariable = 'LOG_DESTINATION_SERVER' | 'LOG_DESTINATION_INGAME' | 'LOG_DESTINATION_MODERATION'

function destinationProblem(input: unknown, name: DestinationVariable): string | null {
  const env = input as Partial<Record<DestinationVariable | 'DISCORD_API', string>>
  const value = env[name] ?? ''
  if (value === '') return null
  const parsed = parseDestinationTarget(value, env.DISCORD_API ?? '')
  return parsed.ok ? null : parsed.message
}

// A webhook on the DISCORD_API host is trusted too, so each destination is checked together with DISCORD_API.
const destinationCheck = (name: DestinationVariable) =>
  v.forward<v.InferOutput<typeof EnvEntries>, v.BaseIssue<unknown>, [DestinationVariable]>(
    v.partialCheck(
      [[name], ['DISCORD_API']],
      (env) => destinationProblem(env, name) === null,
      (issue) => `${name} ${destinationProblem(issue.input, name) ?? 'is invalid'}`,
    ),
    [name],
  )

const EnvSchema = v.pipe(
  EnvEntries,
  destinationCheck('LOG_DESTINATION_SERVER'),
  destinationCheck('LOG_DESTINATION_INGAME'),
  destinationCheck('LOG_DESTINATION_MODERATION'),
  v.forward(
    v.partialCheck(
      [['SAFETY_REVIEW_INFRACTIONS'], ['SAFETY_UNSAFE_INFRACTIONS']],
      (env) => env.SAFETY_REVIEW_INFRACTIONS === 0 || env.SAFETY_UNSAFE_INFRACTIONS === 0 || env.SAFETY_UNSAFE_INFRACTIONS >= env.SAFETY_REVIEW_INFRACTIONS,
      'SAFETY_UNSAFE_INFRACTIONS must be at least SAFETY_REVIEW_INFRACTIONS (or 0 to turn that level off)',
    ),
    ['SAFETY_UNSAFE_INFRACTIONS'],
  ),
)

/** One Sentinel's address. */
export interface SentinelAddress {
  host: string
  port: number
}

/**
 * Where Redis is. `url`: one address (REDIS_URL, the default). `sentinel`: the primary that the Sentinels at
 * `sentinels` monitor under `name`; every connection asks them for the primary and follows a failover. `password`
 * is the data nodes' (REDIS_PASSWORD), `sentinelPassword` the Sentinels' own; '' when not set.
 */
export type RedisTarget =
  | { kind: 'url'; url: string }
  | { kind: 'sentinel'; sentinels: readonly SentinelAddress[]; name: string; password: string; sentinelPassword: string }

/** The default port of a Sentinel (when an address of REDIS_SENTINELS gives none). */
export const SENTINEL_DEFAULT_PORT = 26379

/** Parses `host:port`, `host` or `[v6]:port`; null when it is not an address. */
export function parseSentinelAddress(text: string): SentinelAddress | null {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9_.-]+))(?::(\d{1,5}))?$/.exec(text.trim())
  if (m === null) return null
  const port = m[3] === undefined ? SENTINEL_DEFAULT_PORT : Number(m[3])
  if (port < 1 || port > 65535) return null
  return { host: m[1] ?? m[2] ?? '', port }
}

/** The Redis variables read together (empty ones are absent); `urlSet` says whether REDIS_URL was given. */
export interface RedisVariables {
  REDIS_URL: string
  urlSet: boolean
  REDIS_SENTINELS?: string | undefined
  REDIS_SENTINEL_NAME?: string | undefined
  REDIS_SENTINEL_PASSWORD?: string | undefined
  REDIS_PASSWORD?: string | undefined
}

/**
 * How REDIS_URL and the Sentinel variables combine: without REDIS_SENTINELS, REDIS_URL (or its default) is the
 * address and the Sentinel variables must be unset (a password goes in the URL). With REDIS_SENTINELS, the
 * Sentinels name the primary, REDIS_SENTINEL_NAME is required, and REDIS_URL must be unset: two addresses would leave
 * it unclear which one the service writes to.
 */
export function redisTargetOf(env: RedisVariables): { ok: true; target: RedisTarget } | { ok: false; problems: string[] } {
  const problems: string[] = []
  const sentinelsText = env.REDIS_SENTINELS ?? ''
  if (sentinelsText === '') {
    for (const name of ['REDIS_SENTINEL_NAME', 'REDIS_SENTINEL_PASSWORD', 'REDIS_PASSWORD'] as const) {
      if ((env[name] ?? '') !== '') {
        problems.push(
          name === 'REDIS_PASSWORD'
            ? 'REDIS_PASSWORD is for the data nodes behind REDIS_SENTINELS; without Sentinel, put the password in REDIS_URL (redis://:PASSWORD@host:6379)'
            : `${name} is set but REDIS_SENTINELS is not: set REDIS_SENTINELS too, or unset ${name}`,
        )
      }
    }
    return problems.length > 0 ? { ok: false, problems } : { ok: true, target: { kind: 'url', url: env.REDIS_URL } }
  }
  if (env.urlSet) problems.push('REDIS_URL and REDIS_SENTINELS are both set: with Sentinel the primary\'s address comes from the Sentinels; unset REDIS_URL (its password goes in REDIS_PASSWORD)')
  const parts = sentinelsText.split(',').map((p) => p.trim()).filter((p) => p !== '')
  const sentinels: SentinelAddress[] = []
  for (const part of parts) {
    const address = parseSentinelAddress(part)
    if (address === null) problems.push(`REDIS_SENTINELS: ${JSON.stringify(part.slice(0, 60))} is not host:port`)
    else sentinels.push(address)
  }
  if (parts.length === 0) problems.push('REDIS_SENTINELS must be a comma list of host:port')
  const name = env.REDIS_SENTINEL_NAME ?? ''
  if (name === '') problems.push('REDIS_SENTINEL_NAME is required with REDIS_SENTINELS (the master name of `sentinel monitor`)')
  else if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) problems.push('REDIS_SENTINEL_NAME must be 1-64 characters of letters, digits, _ . -')
  if (problems.length > 0) return { ok: false, problems }
  return {
    ok: true,
    target: { kind: 'sentinel', sentinels: Object.freeze(sentinels), name, password: env.REDIS_PASSWORD ?? '', sentinelPassword: env.REDIS_SENTINEL_PASSWORD ?? '' },
  }
}

/** Where `target` points, for logs and errors: `host:port`, or `sentinel NAME at host:port,...`; never a password. */
export function describeRedisTarget(target: RedisTarget): string {
  if (target.kind === 'sentinel') return `sentinel ${target.name} at ${target.sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`
  const { hostname, port } = new URL(target.url)
  return `${hostname}:${port === '' ? '6379' : port}`
}

/**
 * HOST when it is not set: loopback outside production, so a development start (the sandbox's, with no API key
 * and open metrics) is not reachable from other machines; every interface in production, as before (a container
 * must listen on its own interface; the Docker image and compose set it explicitly anyway).
 */
export function hostDefault(production: boolean): string {
  return production ? '0.0.0.0' : '127.0.0.1'
}

/**
 * Whether serve runs against the local sandbox: on purpose (SANDBOX=on) or, outside production, when no bot token is
 * set. A production deployment that lost its token must not quietly serve a fake Discord.
 */
export function inSandboxMode(c: { sandbox: 'on' | 'off' | 'auto'; discordToken: string; production: boolean }): boolean {
  return c.sandbox === 'on' || (c.sandbox === 'auto' && c.discordToken === '' && !c.production)
}

/** OPEN_CLOUD_API when it is not set: the sandbox's Open Cloud in sandbox mode (`push test` included), else Roblox's. */
export function openCloudApiDefault(sandboxMode: boolean, sandboxPort: number): string {
  return sandboxMode ? `http://127.0.0.1:${sandboxPort}/open-cloud` : 'https://apis.roblox.com'
}

/** The validated, frozen configuration. */
export type Config = Readonly<{
  port: number
  /** Address the front, the metrics endpoints and serve's "up" line use: HOST, else hostDefault(production). */
  host: string
  frontWorkers: number
  /** REDIS_URL, or its default (the address only when `redis.kind` is `url`). */
  redisUrl: string
  /** Where Redis is: one URL, or the primary a set of Sentinels names (redisTargetOf). */
  redis: RedisTarget
  /** Replicas that must confirm a write (WAIT) before the front or the gateway calls it accepted; 0 = no WAIT. */
  redisWriteReplicas: number
  /** The WAIT bound, in ms: no confirmation within it answers 503 (a log or bind) instead of success. */
  redisWriteTimeoutMs: number
  redisPrefix: string
  databaseUrl: string
  gamePlatformName: string
  trustProxy: readonly string[]
  maxCodesPerRequest: number
  apiKey: string
  robloxUsersApi: string
  rateLimits: RateLimits | null
  /** Distinct unknown codes (not found, or issued but not linked) one client may ask for per hour; 0 = off. */
  unknownCodeBudget: number
  /** Codes whose views each front worker keeps in memory (the near cache); 0 = off. */
  nearCacheEntries: number
  bindTimeoutMs: number
  /** How long a request body may take to arrive after its headers before the front answers 400 and closes. */
  bodyTimeoutMs: number
  /** How long `serve` waits for its parts to start before it names the late ones (and why) in an error. */
  partStartTimeoutMs: number
  /** Distinct codes one stream (SSE or WebSocket) may follow. */
  streamMaxCodes: number
  /** Open streams one client (IPv4 address or IPv6 /64) may hold on one front worker. */
  streamMaxPerClient: number
  /** Code subscriptions (codes summed over open streams) one front worker holds at most. */
  streamMaxSubscriptions: number
  /** Bytes a stream may have waiting to be sent before it is cut off as a slow consumer. */
  streamMaxBufferedBytes: number
  /** Interval of a stream's heartbeat (SSE comment, WebSocket ping). */
  streamHeartbeatMs: number
  logLevel: string
  metricsPort: number
  workerMetricsPort: number
  gatewayMetricsPort: number
  discordToken: string
  discordApi: string
  shardCount: number
  shardIds: readonly number[]
  guildWhitelist: readonly string[]
  /** Guilds whose staff act for this deployment: `/staff` is registered and obeyed only there (empty: nowhere). */
  staffGuildIds: readonly string[]
  staffRoleId: string
  messageContent: boolean
  commandScope: 'guild' | 'global'
  messageRetentionDays: number
  /** Days after a chat user left every whitelisted guild before their data is erased (unless they come back). */
  forgetAfterLeaveDays: number
  sandboxPort: number
  /** Destination per category from LOG_DESTINATION_*: a channel id or a webhook URL; '' when not set. */
  logDestinations: Readonly<Record<'server' | 'ingame' | 'moderation', string>>
  deliveryRateLimit: number
  deliveryBatchMs: number
  deliveryPollMs: number
  /** A destination with more entries pending than this falls behind and gets digests (0: this trigger is off). */
  deliveryDigestBacklog: number
  /** A destination whose oldest pending entry waited this long falls behind and gets digests (0: this trigger is off). */
  deliveryDigestAfterMs: number
  /** How often a destination that fell behind gets a digest. */
  deliveryDigestEveryMs: number
  /** Log entries stored more than this many days ago are pruned by the worker; 0 keeps them forever. */
  logRetentionDays: number
  /** Entries read per window and deleted per statement at most by a prune. */
  logPruneBatchSize: number
  /** Pause after each DELETE of a prune. */
  logPrunePauseMs: number
  /** A complete prune is followed by the next one this long after (any worker's). */
  logPruneIntervalSeconds: number
  safetyReviewInfractions: number
  safetyUnsafeInfractions: number
  /** NODE_ENV is `production` (the Docker image sets it): serve never falls back to the sandbox. */
  production: boolean
  /** SANDBOX: `on` runs serve against the sandbox on purpose, `off` never, `auto` only without DISCORD_TOKEN outside production. */
  sandbox: 'on' | 'off' | 'auto'
  /** Secret the Open Cloud keys of push targets are encrypted with ('' when unset: push targets cannot be added or used). */
  pushSecret: string
  /** Base of Roblox's Open Cloud API (messaging), without a trailing slash. */
  openCloudApi: string
  /** The publisher's coalescing window: changes within one window share a message. */
  pushWindowMs: number
  /** Life of a push subscription unless renewed (the `expires_in` of its answer). */
  pushSubscriptionSeconds: number
  /** Publishes per minute over every universe (Roblox's per-owner limit is 5,000). */
  pushPublishesPerMinute: number
}>

/** Result of reading an environment: the config, or every problem found. */
export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: string[] }

/** Validates an environment (pure: pass `process.env` or a test object). */
export function parseConfig(env: Record<string, string | undefined>): ConfigResult {
  const input: Record<string, string> = {}
  for (const key of Object.keys(EnvEntries.entries)) {
    const value = env[key]
    if (value !== undefined && value !== '') input[key] = value
  }
  const result = v.safeParse(EnvSchema, input, { abortEarly: false, abortPipeEarly: false })
  if (!result.success) {
    // The Redis combination is checked on the raw strings too, so its problems are listed with the others at once.
    const redis = redisTargetOf({ ...input, REDIS_URL: input.REDIS_URL ?? '', urlSet: input.REDIS_URL !== undefined })
    return { ok: false, problems: [...result.issues.map((i) => `${v.getDotPath(i) ?? 'env'}: ${i.message}`), ...(redis.ok ? [] : redis.problems)] }
  }
  const o = result.output
  const problems: string[] = []
  const target = redisTargetOf({ ...o, urlSet: input.REDIS_URL !== undefined })
  if (!target.ok) problems.push(...target.problems)
  const shardIds = o.SHARD_IDS.length === 0 ? [...Array(o.SHARD_COUNT).keys()] : o.SHARD_IDS.map(Number)
  if (shardIds.some((id) => id >= o.SHARD_COUNT)) problems.push(`SHARD_IDS: every shard id must be below SHARD_COUNT (${o.SHARD_COUNT})`)
  for (const entry of o.TRUST_PROXY) {
    const problem = trustProxyProblem(entry)
    if (problem !== null) problems.push(`TRUST_PROXY: ${problem}`)
  }
  if (o.DISCORD_API !== '' && !/^https?:\/\//.test(o.DISCORD_API)) problems.push('DISCORD_API must be an http(s) URL')
  const retention = retentionDaysProblem(o.LOG_RETENTION_DAYS)
  if (retention !== null) problems.push(`LOG_RETENTION_DAYS ${retention}`)
  if (problems.length > 0) return { ok: false, problems }
  if (!target.ok) return { ok: false, problems }
  return {
    ok: true,
    config: Object.freeze({
      port: o.PORT,
      host: o.HOST ?? hostDefault(o.NODE_ENV === 'production'),
      frontWorkers: o.FRONT_WORKERS,
      redisUrl: o.REDIS_URL,
      redis: target.target,
      redisWriteReplicas: o.REDIS_WRITE_REPLICAS,
      redisWriteTimeoutMs: o.REDIS_WRITE_TIMEOUT_MS,
      redisPrefix: o.REDIS_PREFIX,
      databaseUrl: o.DATABASE_URL,
      gamePlatformName: o.GAME_PLATFORM_NAME,
      trustProxy: Object.freeze([...o.TRUST_PROXY]),
      maxCodesPerRequest: o.MAX_CODES_PER_REQUEST,
      apiKey: o.API_KEY,
      robloxUsersApi: o.ROBLOX_USERS_API.replace(/\/+$/, ''),
      rateLimits: o.RATE_LIMITS,
      unknownCodeBudget: o.UNKNOWN_CODE_BUDGET,
      nearCacheEntries: o.NEAR_CACHE_ENTRIES,
      bindTimeoutMs: o.BIND_TIMEOUT_MS,
      bodyTimeoutMs: o.BODY_TIMEOUT_MS,
      partStartTimeoutMs: o.PART_START_TIMEOUT_MS,
      streamMaxCodes: o.STREAM_MAX_CODES,
      streamMaxPerClient: o.STREAM_MAX_PER_CLIENT,
      streamMaxSubscriptions: o.STREAM_MAX_SUBSCRIPTIONS,
      streamMaxBufferedBytes: o.STREAM_MAX_BUFFERED_BYTES,
      streamHeartbeatMs: o.STREAM_HEARTBEAT_MS,
      logLevel: o.LOG_LEVEL,
      metricsPort: o.METRICS_PORT,
      workerMetricsPort: o.WORKER_METRICS_PORT,
      gatewayMetricsPort: o.GATEWAY_METRICS_PORT,
      discordToken: o.DISCORD_TOKEN.trim(),
      discordApi: o.DISCORD_API.replace(/\/+$/, ''),
      shardCount: o.SHARD_COUNT,
      shardIds: Object.freeze(shardIds),
      guildWhitelist: Object.freeze([...o.GUILD_WHITELIST]),
      staffGuildIds: Object.freeze([...o.STAFF_GUILD_IDS]),
      staffRoleId: o.STAFF_ROLE_ID,
      messageContent: o.MESSAGE_CONTENT,
      commandScope: o.COMMAND_SCOPE,
      messageRetentionDays: o.MESSAGE_RETENTION_DAYS,
      forgetAfterLeaveDays: o.FORGET_AFTER_LEAVE_DAYS,
      sandboxPort: o.SANDBOX_PORT,
      logDestinations: Object.freeze({ server: o.LOG_DESTINATION_SERVER, ingame: o.LOG_DESTINATION_INGAME, moderation: o.LOG_DESTINATION_MODERATION }),
      deliveryRateLimit: o.DELIVERY_RATE_LIMIT,
      deliveryBatchMs: o.DELIVERY_BATCH_MS,
      deliveryPollMs: o.DELIVERY_POLL_MS,
      deliveryDigestBacklog: o.DELIVERY_DIGEST_BACKLOG,
      deliveryDigestAfterMs: o.DELIVERY_DIGEST_AFTER_MS,
      deliveryDigestEveryMs: o.DELIVERY_DIGEST_EVERY_MS,
      logRetentionDays: o.LOG_RETENTION_DAYS,
      logPruneBatchSize: o.LOG_PRUNE_BATCH_SIZE,
      logPrunePauseMs: o.LOG_PRUNE_PAUSE_MS,
      logPruneIntervalSeconds: o.LOG_PRUNE_INTERVAL_SECONDS,
      safetyReviewInfractions: o.SAFETY_REVIEW_INFRACTIONS,
      safetyUnsafeInfractions: o.SAFETY_UNSAFE_INFRACTIONS,
      production: o.NODE_ENV === 'production',
      sandbox: o.SANDBOX,
      pushSecret: o.PUSH_SECRET,
      openCloudApi: (
        o.OPEN_CLOUD_API ?? openCloudApiDefault(inSandboxMode({ sandbox: o.SANDBOX, discordToken: o.DISCORD_TOKEN, production: o.NODE_ENV === 'production' }), o.SANDBOX_PORT)
      ).replace(/\/+$/, ''),
      pushWindowMs: o.PUSH_WINDOW_MS,
      pushSubscriptionSeconds: o.PUSH_SUBSCRIPTION_SECONDS,
      pushPublishesPerMinute: o.PUSH_PUBLISHES_PER_MINUTE,
    }),
  }
}

let loaded: Config | undefined

/** Reads process.env once; on problems prints every one and exits with status 78 (EX_CONFIG). */
export function loadConfig(overrides: Record<string, string | undefined> = {}): Config {
  if (loaded !== undefined && Object.keys(overrides).length === 0) return loaded
  const result = parseConfig({ ...process.env, ...overrides })
  if (!result.ok) {
    process.stderr.write(`presence-link: invalid configuration:\n${result.problems.map((p) => `  - ${p}`).join('\n')}\n`)
    process.exit(78)
  }
  if (Object.keys(overrides).length === 0) loaded = result.config
  return result.config
}
