/**
 * The read path of callbacks and rpc: one Redis round trip per request, through a Lua script.
 *
 * KEYS[1] `{p}:codes`            code -> cached code record (code-record.ts)
 * KEYS[2] `{p}:presence`         chat user id -> `shard|status|activity` (presence-entry.ts)
 * KEYS[3] `{p}:presence:shards`  shard id -> epoch ms until which that shard's entries are live
 * ARGV    the requested codes (already validated, distinct)
 * Three commands whatever the number of codes: HMGET of the records, HMGET of the presences, HGETALL of the marks.
 * Returns a flat array, two items per code: the cached record ('' when unknown) and the activity text
 * ('' when the user has no live presence, the record does not need one, or the writing shard is stale).
 */
import type { Redis } from 'ioredis'
import type { RedisKeys } from './redis-keys.js'
import { decodeCachedCode, viewOf } from './code-record.js'
import type { CodeView } from '../text/blocks.js'

const LOOKUP_SCRIPT = `
local records = redis.call('HMGET', KEYS[1], unpack(ARGV))
local users = {}
local wanted = {}
for i = 1, #ARGV do
  local rec = records[i]
  if rec then
    local state, paused, user, name = string.match(rec, '^([a-z]+)|([01])|([^|]*)|(.*)$')
    if state == 'active' and paused == '0' and name ~= nil and name ~= '' then
      users[#users + 1] = user
      wanted[i] = #users
    end
  end
end
local presences = {}
local shardLive = {}
if #users > 0 then
  presences = redis.call('HMGET', KEYS[2], unpack(users))
  local t = redis.call('TIME')
  local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local marks = redis.call('HGETALL', KEYS[3])
  for j = 1, #marks, 2 do
    shardLive[marks[j]] = (tonumber(marks[j + 1]) or 0) > nowMs
  end
end
local out = {}
for i = 1, #ARGV do
  local activity = ''
  local slot = wanted[i]
  if slot then
    local p = presences[slot]
    if p then
      local shard, rest = string.match(p, '^(%d+)|[a-z]+|(.*)$')
      if shard and shardLive[shard] then activity = rest end
    end
  end
  out[#out + 1] = records[i] or ''
  out[#out + 1] = activity
end
return out
`

/** Looks up many codes at once and returns what each block shows, in request order. */
export type CodeLookup = (codes: readonly string[]) => Promise<CodeView[]>

/** Creates the lookup over a Redis client (defines the script command on it once). */
export function createCodeLookup(redis: Redis, keys: RedisKeys): CodeLookup {
  const name = 'presenceLinkLookup'
  if (typeof (redis as unknown as Record<string, unknown>)[name] !== 'function') {
    redis.defineCommand(name, { numberOfKeys: 3, lua: LOOKUP_SCRIPT })
  }
  const run = (redis as unknown as Record<string, (...args: string[]) => Promise<string[]>>)[name]!.bind(redis)
  return async (codes) => {
    const flat = await run(keys.codes, keys.presence, keys.presenceShards, ...codes)
    const views: CodeView[] = new Array(codes.length)
    for (let i = 0; i < codes.length; i++) {
      const raw = flat[2 * i] ?? ''
      views[i] = viewOf(raw === '' ? undefined : decodeCachedCode(raw), flat[2 * i + 1] ?? '')
    }
    return views
  }
}
