/**
 * The Redis connection of an administration command. A service process waits for Redis and logs the outage; an
 * operator at a prompt wants the reason at once, so a command gives up within a few seconds with one error that
 * names Redis and its address.
 */
import { describeRedisTarget } from '../config.js'
import { createRedis } from '../redis/connection.js'
import type { ProcessContext } from '../runtime/process-context.js'
import { errorCode } from '../redis/redis-watch.js'

/** How long a command waits for Redis to answer before it gives up. */
export const CLI_REDIS_WAIT_MS = 3000

/** A fail-fast Redis connection (ioredis is named only below src/redis/ and src/runtime/). */
export type CliRedis = ReturnType<typeof createRedis>

/**
 * Opens a fail-fast connection for one command and registers its close. Rejects with `cannot reach Redis at
 * HOST:PORT (REASON); check REDIS_URL` (or REDIS_SENTINELS) when it is not ready within CLI_REDIS_WAIT_MS.
 */
export async function openCliRedis(ctx: ProcessContext): Promise<CliRedis> {
  const redis = createRedis(ctx.config.redis, 'request', `${ctx.name}:cli`)
  let lastError: unknown
  // Connection errors are the reason given below; without a listener ioredis would print each one to stderr.
  redis.on('error', (err) => {
    lastError = err
  })
  const ready = await new Promise<boolean>((resolve) => {
    if (redis.status === 'ready') return resolve(true)
    const done = (ok: boolean) => {
      clearTimeout(timer)
      redis.off('ready', onReady)
      resolve(ok)
    }
    const onReady = () => done(true)
    const timer = setTimeout(() => done(false), CLI_REDIS_WAIT_MS)
    redis.on('ready', onReady)
  })
  if (!ready) {
    redis.disconnect()
    const reason = lastError === undefined ? `no answer within ${CLI_REDIS_WAIT_MS / 1000} s` : errorCode(lastError)
    const variable = ctx.config.redis.kind === 'sentinel' ? 'REDIS_SENTINELS' : 'REDIS_URL'
    throw new Error(`cannot reach Redis at ${describeRedisTarget(ctx.config.redis)} (${reason}); check ${variable}`)
  }
  ctx.shutdown.register('redis:cli', async () => {
    await redis.quit().catch(() => redis.disconnect())
  })
  return redis
}
