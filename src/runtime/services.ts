/**
 * The features built over real clients: each function hands a feature the rows and Redis copies it needs. Used by
 * the process runtimes, the CLI, tests and benchmarks, so every caller wires a feature the same way.
 */
import type { Redis } from 'ioredis'
import type { Kysely } from 'kysely'
import { createApiKeyService, type ApiKeyService } from '../auth/api-key-service.js'
import { createCodeService, type CodeService } from '../codes/code-service.js'
import { createGuildWhitelist, type GuildWhitelist } from '../gateway/guild-whitelist.js'
import { createApiKeyRows } from '../mysql/api-key-rows.js'
import { createCodeRows } from '../mysql/code-rows.js'
import { createGuildWhitelistRows } from '../mysql/guild-whitelist-rows.js'
import { createInfractionRows } from '../mysql/infraction-rows.js'
import type { Database } from '../mysql/schema.js'
import { createTransactions } from '../mysql/transactions.js'
import { createPushTargetRows } from '../mysql/push-target-rows.js'
import { createOpenCloudPublish } from '../push/open-cloud.js'
import { createPushTargets, type PushTargets } from '../push/push-targets.js'
import { createApiKeyCopy } from '../redis/api-key-copy.js'
import type { CodeCache } from '../redis/code-cache.js'
import { createGuildSet } from '../redis/guild-set.js'
import type { RedisKeys } from '../redis/keys.js'
import { createForgetService, type ForgetService } from '../privacy/forget-service.js'
import { createPrivacyRows } from '../mysql/privacy-rows.js'
import { createPushSubscriptions } from '../redis/push-subscriptions.js'
import { createPresenceStore } from '../redis/presence-store.js'
import { createMyDataReader } from '../privacy/my-data.js'
import type { MyData } from '../privacy/model/my-data.js'

/** The code service over MySQL and a code cache (write-through only; rebuilding the cache is storage.ts's job). */
export function buildCodeService(db: Kysely<Database>, cache: CodeCache): CodeService {
  return createCodeService({ rows: createCodeRows(db), transactions: createTransactions(db), cache })
}

/** A chat user's erasure over MySQL, the code cache and the push subscriptions in Redis. */
export function buildForgetService(db: Kysely<Database>, cache: CodeCache, redis: Redis, keys: RedisKeys): ForgetService {
  return createForgetService({ rows: createPrivacyRows(db), cache, push: createPushSubscriptions(redis, keys) })
}

/**
 * The reader of what is kept about a chat user (`/mydata`, `users show`). The caller reads the retention settings:
 * every process reaches this file, and test/docker-compose.test.ts counts a setting read here as read by all of them.
 */
export function buildMyDataReader(db: Kysely<Database>, redis: Redis, keys: RedisKeys, retention: MyData['retention']): (chatUserId: string) => Promise<MyData | null> {
  const [rows, infractions] = [createPrivacyRows(db), createInfractionRows(db)]
  return createMyDataReader({ rows, infractions, presence: createPresenceStore(redis, keys), push: createPushSubscriptions(redis, keys), retention })
}

/** The API key service over MySQL and the front's Redis copy. */
export function buildApiKeyService(db: Kysely<Database>, redis: Redis, keys: RedisKeys): ApiKeyService {
  return createApiKeyService({ rows: createApiKeyRows(db), copy: createApiKeyCopy(redis, keys) })
}

/** The guild whitelist over MySQL and the gateway's Redis copy; `fromEnv` is GUILD_WHITELIST. */
export function buildGuildWhitelist(db: Kysely<Database>, redis: Redis, keys: RedisKeys, fromEnv: readonly string[]): GuildWhitelist {
  return createGuildWhitelist({ rows: createGuildWhitelistRows(db), set: createGuildSet(redis, keys), fromEnv })
}

/** The push targets over MySQL; `secret` is PUSH_SECRET and `openCloudApi` OPEN_CLOUD_API (for `push test`). */
export function buildPushTargets(db: Kysely<Database>, secret: string, openCloudApi: string): PushTargets {
  return createPushTargets({ rows: createPushTargetRows(db), apiKeys: createApiKeyRows(db), secret, publish: createOpenCloudPublish(openCloudApi) })
}
