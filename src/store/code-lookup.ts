/**
 * The read path of callbacks and rpc: one pipelined Redis round trip per request, three plain commands whatever the
 * number of codes (measured: about 25 µs of Redis time for 50 codes, against about 100 µs for the same work in a Lua
 * script, whose per-call overhead dominated):
 *
 * - HMGET `{p}:codes` CODE...            the cached code records (code-record.ts)
 * - HMGET `{p}:presence` CODE...         the presences, keyed by code (presence-entry.ts)
 * - HGETALL `{p}:presence:shards`        shard id -> epoch ms until which that shard's entries count as live
 *
 * Liveness is judged with this host's clock against marks written with the gateway's clock; the marks last 15 s,
 * so hosts need only ordinary NTP-level agreement.
 */
import type { Redis } from 'ioredis'
import type { RedisKeys } from './redis-keys.js'
import { decodeCachedCode, viewOf } from './code-record.js'
import { decodePresence } from './presence-entry.js'
import type { CodeView } from '../text/blocks.js'

/** Looks up many codes at once and returns what each block shows, in request order. */
export type CodeLookup = (codes: readonly string[]) => Promise<CodeView[]>

type Reply = [Error | null, unknown]

/** Creates the lookup over a Redis client. */
export function createCodeLookup(redis: Redis, keys: RedisKeys, now: () => number = Date.now): CodeLookup {
  return async (codes) => {
    const replies = (await redis
      .pipeline()
      .hmget(keys.codes, ...codes)
      .hmget(keys.presence, ...codes)
      .hgetall(keys.presenceShards)
      .exec()) as Reply[] | null
    if (replies === null) throw new Error('Redis pipeline was not executed')
    for (const [err] of replies) if (err !== null) throw err
    const records = replies[0]![1] as Array<string | null>
    const presences = replies[1]![1] as Array<string | null>
    const marks = replies[2]![1] as Record<string, string>
    const at = now()
    const views: CodeView[] = new Array(codes.length)
    for (let i = 0; i < codes.length; i++) {
      const raw = records[i]
      const cached = raw == null ? undefined : decodeCachedCode(raw)
      let activity = ''
      const presence = presences[i]
      if (presence != null && cached?.state === 'active' && !cached.paused) {
        const entry = decodePresence(presence)
        if (entry !== undefined && Number(marks[String(entry.shard)] ?? 0) > at) activity = entry.activity
      }
      views[i] = viewOf(cached, activity)
    }
    return views
  }
}
