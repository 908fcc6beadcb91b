--[[
  Writes code records into {p}:codes compare-and-set on their MySQL row version: a record is written only when the
  stored one is older (or absent; a record from before versions counts as version 0), so a late write of an older
  version never overwrites a newer one. A revoked record is kept as a tombstone at its version, so nothing older can
  bring the code back. With a record written: a live code becomes its user's holder entry; a revoked one drops its
  presence and the holder entry while it still points at it. At the same version nothing is rewritten, but a live
  code's missing holder entry is restored (a retried command re-writes what it may have failed to write).

    Input:
      KEYS[1] codes hash, {p}:codes (field = CODE, value = codes/model/code-record.ts encoding, version last)
      KEYS[2] holders hash, {p}:holders (field = chat user id, value = live CODE)
      KEYS[3] presence hash, {p}:presence (field = CODE)

      ARGV[1] change feed channel, {p}:feed
      ARGV[2] feed message (redis/model/feed-message.ts) published when anything changed; '' publishes nothing
      ARGV[3..] groups of four per record: CODE, version, chat user id, encoded record

    Output:
      the number of records whose copy changed (record, or a restored holder entry)
]]
--- @include "includes/stored-version"

local changed = 0
for i = 3, #ARGV, 4 do
  local code, version, user, record = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2], ARGV[i + 3]
  local current = stored_version(redis.call('HGET', KEYS[1], code), 5)
  local revoked = string.sub(record, 1, 8) == 'revoked|'
  if version > current then
    redis.call('HSET', KEYS[1], code, record)
    if revoked then
      redis.call('HDEL', KEYS[3], code)
      if redis.call('HGET', KEYS[2], user) == code then redis.call('HDEL', KEYS[2], user) end
    else
      redis.call('HSET', KEYS[2], user, code)
    end
    changed = changed + 1
  elseif version == current and not revoked and redis.call('HSETNX', KEYS[2], user, code) == 1 then
    changed = changed + 1
  end
end
if changed > 0 and ARGV[2] ~= '' then redis.call('PUBLISH', ARGV[1], ARGV[2]) end
return changed
