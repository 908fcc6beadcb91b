/**
 * Starts the real service in-process for one test file: its own MariaDB database and Redis key prefix,
 * the real front (hyper-express on a free port) and the real queue consumers. Everything is removed at teardown.
 */
import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { Kysely } from 'kysely'
import type { CodeService } from '../../src/codes/code-service.js'
import { parseConfig, type Config } from '../../src/config.js'
import { createDatabase, ensureDatabase } from '../../src/mysql/connection.js'
import type { Database } from '../../src/mysql/schema.js'
import { createLogger } from '../../src/lib/logger.js'
import { createCodeCache } from '../../src/redis/code-cache.js'
import { createPresenceStore, type PresenceStore } from '../../src/redis/presence-store.js'
import { CONSUMERS, type ConsumerName } from '../../src/queue/model/consumer-policy.js'
import { startConsumers } from '../../src/runtime/consumers.js'
import { startFront } from '../../src/runtime/front-runtime.js'
import { createProcessContext, type ProcessContext } from '../../src/runtime/process-context.js'
import { buildApiKeyService, buildCodeService } from '../../src/runtime/services.js'
import { openDatabase, openRedis } from '../../src/runtime/storage.js'
import { dropScratch } from './scratch.js'

/** Minimal view of a tap test for teardown. */
export interface Teardown {
  teardown(fn: () => unknown): void
}

/** A running stack for one test file. */
export interface Stack {
  config: Config
  ctx: ProcessContext
  /** `http://127.0.0.1:PORT/api/v1` (empty when no front was started). */
  api: string
  /** `http://127.0.0.1:PORT`. */
  origin: string
  db: Kysely<Database>
  redis: Redis
  apiKey: string
  codes: CodeService
  presence: PresenceStore
}

/** Options for a stack. */
export interface StackOptions {
  env?: Record<string, string>
  front?: boolean
  consumers?: readonly ConsumerName[]
  observer?: Parameters<typeof startFront>[1]
}

/** A fresh unique name for a database and Redis prefix. */
export function uniqueName(): string {
  return `t${randomBytes(5).toString('hex')}`
}

/** The test environment: local services, a unique database and prefix, quiet logs. */
export function testConfig(name: string, env: Record<string, string> = {}): Config {
  const result = parseConfig({
    DATABASE_URL: `mysql://root@127.0.0.1:3306/pl_${name}`,
    REDIS_URL: 'redis://127.0.0.1:6379',
    REDIS_PREFIX: name,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    BIND_TIMEOUT_MS: '5000',
    ...env,
  })
  if (!result.ok) throw new Error(`bad test config: ${result.problems.join('; ')}`)
  return result.config
}

/** Starts a stack and registers its removal on `t`. */
export async function startStack(t: Teardown, opts: StackOptions = {}): Promise<Stack> {
  const name = uniqueName()
  const config = testConfig(name, opts.env)
  const log = createLogger('test', config.logLevel)
  const ctx = createProcessContext('test', config, log)
  t.teardown(async () => {
    await ctx.shutdown.run('test done')
    await dropEverything(config, name)
  })
  const db = await openDatabase(ctx, 5)
  const redis = await openRedis(ctx, 'request', 'test')
  const cache = createCodeCache(redis, ctx.keys)
  const codes = buildCodeService(db, cache)
  const presence = createPresenceStore(redis, ctx.keys)
  const created = await buildApiKeyService(db, redis, ctx.keys).create('test-server')
  if (!created.ok) throw new Error('could not create the test API key')
  const consumers = opts.consumers ?? CONSUMERS
  if (consumers.length > 0) await startConsumers(ctx, consumers)
  let api = ''
  let origin = ''
  if (opts.front !== false) {
    const front = await startFront(ctx, opts.observer)
    origin = `http://127.0.0.1:${front.port}`
    api = `${origin}/api/v1`
  }
  return { config, ctx, api, origin, db, redis, apiKey: created.key, codes, presence }
}

/** A database of its own that nothing has migrated yet (migration tests), with its config; dropped at teardown. */
export async function unmigratedDatabase(t: Teardown): Promise<{ db: Kysely<Database>; config: Config }> {
  const name = uniqueName()
  const config = testConfig(name)
  await ensureDatabase(config.databaseUrl)
  const db = createDatabase(config.databaseUrl, 2)
  t.teardown(async () => {
    await db.destroy()
    await dropEverything(config, name)
  })
  return { db, config }
}

/** Drops the test database and deletes every Redis key under the prefix. */
export async function dropEverything(config: Config, name: string): Promise<void> {
  const ctx = createProcessContext('cleanup', config, createLogger('cleanup', 'silent'))
  try {
    await dropScratch(await openDatabase(ctx, 1, false), await openRedis(ctx, 'request', 'cleanup'), name)
  } finally {
    await ctx.shutdown.run('cleanup done')
  }
}

/** A JSON request with the stack's key (or another `auth` header value; null sends none). */
export async function postJson(
  url: string,
  body: unknown,
  auth: string | null,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(auth === null ? {} : { authorization: auth }), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await res.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // keep the text
  }
  return { status: res.status, body: parsed, headers: res.headers }
}

/** A GET returning status, text and headers. */
export async function getText(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(url, { headers })
  return { status: res.status, text: await res.text(), headers: res.headers }
}

/**
 * Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`; a function `what` is read
 * when it fails (to name what a process printed by then).
 */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000, what: string | (() => string) = 'condition'): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > until) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/**
 * Writes a shard's liveness mark directly, as an epoch-ms time of Redis's clock (in tests Redis runs on this host, so
 * `Date.now() - 1` is a lapsed mark): the gateway's own writes go through scripts/shard-mark.lua.
 */
export async function setShardMark(stack: Stack, shard: number, untilMs: number): Promise<void> {
  await stack.redis.hset(stack.ctx.keys.presenceShards, String(shard), String(untilMs))
}
