--[[
  Writes API key copies into {p}:apikeys compare-and-set on their MySQL row version: a value is written only when the
  stored one is older (or absent; a value from before versions, `sha256hex|name`, counts as version 0). A revoked
  key is written as a tombstone (empty hash) at its version, so a stale write of the active key cannot bring it back.
  When anything was written, `MS|keys` goes on the change feed in the same script, so every front drops the keys it
  remembers (redis/api-key-cache.ts) before its next request.

    Input:
      KEYS[1] API key hash, {p}:apikeys (field = key id, value = `sha256hex|name|version`, `|name|version` revoked)
      KEYS[2] the change feed channel, {p}:feed

      ARGV[1] the writer's clock, epoch ms (the feed message's MS)
      ARGV[2], ARGV[3], ARGV[4] key id, version, value; further keys follow in groups of three

    Output:
      the number of values written
]]
--- @include "includes/stored-version"

local changed = 0
for i = 2, #ARGV, 3 do
  if tonumber(ARGV[i + 1]) > stored_version(redis.call('HGET', KEYS[1], ARGV[i]), 3) then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
    changed = changed + 1
  end
end
if changed > 0 then
  redis.call('PUBLISH', KEYS[2], ARGV[1] .. '|keys')
end
return changed
