--[[
  Writes code records into {p}:codes compare-and-set on their MySQL row version: a record is written only when the
  stored one is older (or absent; a record from before versions counts as version 0), so a late write of an older
  version never overwrites a newer one. A revoked record is kept as a tombstone at its version, so nothing older can
  bring the code back. With a record written: a live code becomes its user's holder entry and its share setting is
  copied ({p}:share holds only settings other than `everything`); a revoked one drops its presence, its share setting
  and the holder entry while it still points at it. When a written record changes the share setting, the code's
  presence is dropped too: it was filtered under the old setting, and the gateway writes it again under the new one
  (what a setting hides is never served meanwhile). At the same version nothing is rewritten, but a live code's
  missing holder entry is restored (a retried command re-writes what it may have failed to write).

    Input:
      KEYS[1] codes hash, {p}:codes (field = CODE, value = codes/model/code-record.ts encoding, version last)
      KEYS[2] holders hash, {p}:holders (field = chat user id, value = live CODE)
      KEYS[3] presence hash, {p}:presence (field = CODE)
      KEYS[4] share hash, {p}:share (field = CODE, value = share setting other than `everything`)

      ARGV[1] change feed channel, {p}:feed
      ARGV[2] feed message (redis/model/feed-message.ts) published when anything changed; '' publishes nothing
      ARGV[3..] groups of five per record: CODE, version, chat user id, encoded record, share setting ('' when the
                record does not carry one: the stored setting is left as it is)

    Output:
      the number of records whose copy changed (record, or a restored holder entry)
]]
--- @include "includes/stored-version"

local changed = 0
for i = 3, #ARGV, 5 do
  local code, version, user, record, share = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local current = stored_version(redis.call('HGET', KEYS[1], code), 5)
  local revoked = string.sub(record, 1, 8) == 'revoked|'
  if version > current then
    redis.call('HSET', KEYS[1], code, record)
    if revoked then
      redis.call('HDEL', KEYS[3], code)
      redis.call('HDEL', KEYS[4], code)
      if redis.call('HGET', KEYS[2], user) == code then redis.call('HDEL', KEYS[2], user) end
    else
      redis.call('HSET', KEYS[2], user, code)
      if share ~= '' then
        local before = redis.call('HGET', KEYS[4], code) or 'everything'
        if share == 'everything' then redis.call('HDEL', KEYS[4], code) else redis.call('HSET', KEYS[4], code, share) end
        if before ~= share then redis.call('HDEL', KEYS[3], code) end
      end
    end
    changed = changed + 1
  elseif version == current and not revoked and redis.call('HSETNX', KEYS[2], user, code) == 1 then
    changed = changed + 1
  end
end
if changed > 0 and ARGV[2] ~= '' then redis.call('PUBLISH', ARGV[1], ARGV[2]) end
return changed
