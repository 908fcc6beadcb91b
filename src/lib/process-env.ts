/**
 * Which environment variables each process that docker-compose.yml runs needs, so compose can pass exactly those.
 * CONFIG_ENV says which variables make each Config field (a field checked against another variable lists both);
 * PROCESS_CONFIG lists the Config fields each process reads. test/docker-compose.test.ts derives those fields again from
 * the source (every file the entry point imports, searched for `config.field`) and checks them against this list,
 * and checks each compose service's `environment` against {@link processEnv}.
 */
import type { Config } from '../config.js'

/** The environment variables behind each Config field (typed over every field, so a new field must be added here). */
export const CONFIG_ENV: Readonly<Record<keyof Config, readonly string[]>> = Object.freeze({
  port: ['PORT'],
  // Its default depends on NODE_ENV (loopback outside production).
  host: ['HOST', 'NODE_ENV'],
  frontWorkers: ['FRONT_WORKERS'],
  redisUrl: ['REDIS_URL'],
  // REDIS_URL and the Sentinel variables are checked against each other (config.ts redisTargetOf).
  redis: ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_SENTINEL_NAME', 'REDIS_SENTINEL_PASSWORD', 'REDIS_PASSWORD'],
  redisWriteReplicas: ['REDIS_WRITE_REPLICAS'],
  redisWriteTimeoutMs: ['REDIS_WRITE_TIMEOUT_MS'],
  redisPrefix: ['REDIS_PREFIX'],
  databaseUrl: ['DATABASE_URL'],
  gamePlatformName: ['GAME_PLATFORM_NAME'],
  trustProxy: ['TRUST_PROXY'],
  maxCodesPerRequest: ['MAX_CODES_PER_REQUEST'],
  unknownCodeBudget: ['UNKNOWN_CODE_BUDGET'],
  nearCacheEntries: ['NEAR_CACHE_ENTRIES'],
  bodyTimeoutMs: ['BODY_TIMEOUT_MS'],
  partStartTimeoutMs: ['PART_START_TIMEOUT_MS'],
  streamMaxCodes: ['STREAM_MAX_CODES'],
  streamMaxPerClient: ['STREAM_MAX_PER_CLIENT'],
  streamMaxSubscriptions: ['STREAM_MAX_SUBSCRIPTIONS'],
  streamMaxBufferedBytes: ['STREAM_MAX_BUFFERED_BYTES'],
  streamHeartbeatMs: ['STREAM_HEARTBEAT_MS'],
  apiKey: ['API_KEY'],
  robloxUsersApi: ['ROBLOX_USERS_API'],
  rateLimits: ['RATE_LIMITS'],
  bindTimeoutMs: ['BIND_TIMEOUT_MS'],
  logLevel: ['LOG_LEVEL'],
  metricsPort: ['METRICS_PORT'],
  workerMetricsPort: ['WORKER_METRICS_PORT'],
  gatewayMetricsPort: ['GATEWAY_METRICS_PORT'],
  discordToken: ['DISCORD_TOKEN'],
  discordApi: ['DISCORD_API'],
  shardCount: ['SHARD_COUNT'],
  shardIds: ['SHARD_IDS', 'SHARD_COUNT'],
  guildWhitelist: ['GUILD_WHITELIST'],
  staffRoleId: ['STAFF_ROLE_ID'],
  staffGuildIds: ['STAFF_GUILD_IDS'],
  messageContent: ['MESSAGE_CONTENT'],
  commandScope: ['COMMAND_SCOPE'],
  messageRetentionDays: ['MESSAGE_RETENTION_DAYS'],
  forgetAfterLeaveDays: ['FORGET_AFTER_LEAVE_DAYS'],
  sandboxPort: ['SANDBOX_PORT'],
  // A webhook destination is checked against DISCORD_API's host.
  logDestinations: ['LOG_DESTINATION_SERVER', 'LOG_DESTINATION_INGAME', 'LOG_DESTINATION_MODERATION', 'DISCORD_API'],
  deliveryRateLimit: ['DELIVERY_RATE_LIMIT'],
  deliveryBatchMs: ['DELIVERY_BATCH_MS'],
  deliveryPollMs: ['DELIVERY_POLL_MS'],
  deliveryDigestBacklog: ['DELIVERY_DIGEST_BACKLOG'],
  deliveryDigestAfterMs: ['DELIVERY_DIGEST_AFTER_MS'],
  deliveryDigestEveryMs: ['DELIVERY_DIGEST_EVERY_MS'],
  // LOG_RETENTION_DAYS is checked against the minimum in parseConfig (0 or MIN_RETENTION_DAYS and up).
  logRetentionDays: ['LOG_RETENTION_DAYS'],
  logPruneBatchSize: ['LOG_PRUNE_BATCH_SIZE'],
  logPrunePauseMs: ['LOG_PRUNE_PAUSE_MS'],
  logPruneIntervalSeconds: ['LOG_PRUNE_INTERVAL_SECONDS'],
  // The two levels are checked against each other.
  safetyReviewInfractions: ['SAFETY_REVIEW_INFRACTIONS', 'SAFETY_UNSAFE_INFRACTIONS'],
  safetyUnsafeInfractions: ['SAFETY_UNSAFE_INFRACTIONS', 'SAFETY_REVIEW_INFRACTIONS'],
  production: ['NODE_ENV'],
  sandbox: ['SANDBOX'],
  pushSecret: ['PUSH_SECRET'],
  openCloudApi: ['OPEN_CLOUD_API'],
  pushWindowMs: ['PUSH_WINDOW_MS'],
  pushSubscriptionSeconds: ['PUSH_SUBSCRIPTION_SECONDS'],
  pushPublishesPerMinute: ['PUSH_PUBLISHES_PER_MINUTE'],
})

/** The processes docker-compose.yml runs, by compose service name. */
export type ComposeProcess = 'front' | 'worker' | 'gateway'

/** The Config fields each process reads (the code reachable from its entry point). */
export const PROCESS_CONFIG: Readonly<Record<ComposeProcess, readonly (keyof Config)[]>> = Object.freeze({
  front: [
    'apiKey', 'bindTimeoutMs', 'bodyTimeoutMs', 'databaseUrl', 'discordApi', 'frontWorkers', 'host', 'logDestinations', 'logLevel', 'maxCodesPerRequest',
    'metricsPort', 'port', 'rateLimits', 'redisPrefix', 'safetyReviewInfractions', 'safetyUnsafeInfractions', 'trustProxy',
    'redis', 'redisWriteReplicas', 'redisWriteTimeoutMs',
    'streamHeartbeatMs', 'streamMaxBufferedBytes', 'streamMaxCodes', 'streamMaxPerClient', 'streamMaxSubscriptions', 'unknownCodeBudget', 'nearCacheEntries',
    'pushSubscriptionSeconds',
  ],
  worker: [
    'databaseUrl', 'deliveryBatchMs', 'deliveryDigestAfterMs', 'deliveryDigestBacklog', 'deliveryDigestEveryMs', 'deliveryPollMs', 'deliveryRateLimit', 'discordApi', 'discordToken', 'host', 'logDestinations',
    'logLevel', 'redisPrefix', 'robloxUsersApi', 'workerMetricsPort', 'redis',
    'nearCacheEntries', 'openCloudApi', 'pushPublishesPerMinute', 'pushSecret', 'pushSubscriptionSeconds', 'pushWindowMs',
    'logPruneBatchSize', 'logPruneIntervalSeconds', 'logPrunePauseMs', 'logRetentionDays',
    'sandbox',
  ],
  gateway: [
    'commandScope', 'databaseUrl', 'discordApi', 'discordToken', 'gamePlatformName', 'gatewayMetricsPort', 'guildWhitelist', 'host',
    'logLevel', 'messageContent', 'messageRetentionDays', 'redisPrefix', 'shardCount', 'shardIds', 'staffGuildIds', 'staffRoleId',
    'forgetAfterLeaveDays', 'logRetentionDays',
    'redis', 'redisWriteReplicas', 'redisWriteTimeoutMs',
  ],
})

/** The environment variables a process needs, sorted. */
export function processEnv(name: ComposeProcess): string[] {
  return [...new Set(PROCESS_CONFIG[name].flatMap((field) => CONFIG_ENV[field]))].sort()
}
